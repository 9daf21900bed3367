"""``pokertable completion bash|zsh|fish|tcsh``: the shell's completion script for every subcommand and option
(generated from the command line's own parser by shtab). Install it (docs/cli.md)::

    pokertable completion bash > ~/.local/share/bash-completion/completions/pokertable
    pokertable completion zsh > "${fpath[1]}/_pokertable"      # a directory on $fpath
    pokertable completion fish > ~/.config/fish/completions/pokertable.fish
"""

from __future__ import annotations

import argparse
import functools

import shtab

SHELLS = ("bash", "zsh", "fish", "tcsh")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], root: argparse.ArgumentParser) -> None:
    """Register ``completion``; ``root`` is the whole command line, which the script completes."""
    parser = commands.add_parser("completion", help="print a shell completion script (bash, zsh, fish, tcsh)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shell", choices=SHELLS)
    parser.set_defaults(run=functools.partial(run, root))


def run(root: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Print the script."""
    print(script(root, args.shell), end="")
    return 0


def script(root: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``root`` for ``shell``, ending with a newline."""
    text = shtab.complete(root, shell=shell)
    return text if text.endswith("\n") else text + "\n"
