// A second-language client of pokertable.v1 (issue 14): TypeScript, its code generated from proto/ alone by
// protoc-gen-es (src/gen/, not committed), talking gRPC over HTTP/2 with Connect's Node transport.
//
// It deals one Texas Hold'em hand (open the table, seat the players, start, then deal the card the table says is due
// or give the action GetLegalActions allows, until the hand is complete) while an observer watches the table's typed
// Watch stream, then one Texas Hold'em Bonus hand (antes and a bonus, "no va más", cards, each box's decisions,
// until every box is settled), and prints a JSON summary on stdout. Any refused call ends it with exit status 1.
//
//   node dist/deal.js --port 50051 --pit TOKEN --dealer TOKEN --observer TOKEN --thb-dealer TOKEN
//                     [--host 127.0.0.1] [--holdem-table "Mesa 1"] [--thb-table "THB 1"]

import { type MessageInitShape, toJson } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import type { CommandSchema } from "./gen/pokertable/v1/commands_pb.js";
import type { HandCardDealt, TableEvent } from "./gen/pokertable/v1/events_pb.js";
import {
  type ActResponse,
  type GetLegalActionsResponse,
  TableService,
  type WatchResponse,
} from "./gen/pokertable/v1/table_service_pb.js";
import {
  ActionKind,
  BankedStage,
  BettingStructure,
  CardSource,
  CardTarget,
  type CommandResult,
  DeckColour,
  Game,
  GameFamily,
  HandPhase,
  type NextCard,
  type TableView,
  TableViewSchema,
} from "./gen/pokertable/v1/types_pb.js";

type Service = Client<typeof TableService>;
type EventCase = NonNullable<TableEvent["event"]["case"]>;
type OneCommand = MessageInitShape<typeof CommandSchema>["command"];

const MAX_STEPS = 200; // a hand of either game takes far fewer; more means the client is looping

interface Options {
  host: string;
  port: number;
  pit: string;
  dealer: string;
  observer: string;
  thbDealer: string;
  holdemTable: string;
  thbTable: string;
}

function options(argv: string[]): Options {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    if (!name.startsWith("--") || value === undefined) {
      throw new Error(`usage: deal.js --port N --pit T --dealer T --observer T --thb-dealer T (bad: ${name})`);
    }
    given.set(name.slice(2), value);
  }
  const required = (name: string): string => {
    const value = given.get(name);
    if (value === undefined || value === "") {
      throw new Error(`missing --${name}`);
    }
    return value;
  };
  const port = Number(required("port"));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`bad --port ${given.get("port")}`);
  }
  return {
    host: given.get("host") ?? "127.0.0.1",
    port,
    pit: required("pit"),
    dealer: required("dealer"),
    observer: required("observer"),
    thbDealer: required("thb-dealer"),
    holdemTable: given.get("holdem-table") ?? "Mesa 1",
    thbTable: given.get("thb-table") ?? "THB 1",
  };
}

/** A station: the service's client with the station's bearer token on every call, and its command ids. */
class Station {
  readonly service: Service;
  private counter = 0;

  constructor(readonly name: string, options: Options, token: string) {
    const bearer: Interceptor = (next) => async (request) => {
      request.header.set("authorization", `Bearer ${token}`);
      return next(request);
    };
    const transport = createGrpcTransport({
      baseUrl: `http://${options.host}:${options.port}`,
      interceptors: [bearer],
    });
    this.service = createClient(TableService, transport);
  }

  /** A fresh command id (unique per run: retrying the same id would return the first answer). */
  nextId(): string {
    this.counter += 1;
    return `ts-${this.name}-${process.pid}-${Date.now()}-${this.counter}`;
  }

  /** One Act command; returns its result. */
  async act(table: string, command: OneCommand): Promise<CommandResult> {
    const reply: ActResponse = await this.service.act({ commandId: this.nextId(), table, command: { command } });
    return required(reply.result, "ActResponse.result");
  }

  async view(table: string): Promise<TableView> {
    const reply = await this.service.getTable({ table });
    return required(reply.view, "GetTableResponse.view");
  }
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) {
    throw new Error(`${what} missing from the answer`);
  }
  return value;
}

/** The cards to deal, in order, whatever their target (the table says where the next one goes). */
class Deck {
  private readonly cards: string[];

  constructor(cards: string) {
    this.cards = cards.split(" ");
    if (new Set(this.cards).size !== this.cards.length) {
      throw new Error("a card twice in the deck");
    }
  }

  next(): string {
    const card = this.cards.shift();
    if (card === undefined) {
      throw new Error("the deck ran out");
    }
    return card;
  }
}

const kindName = (kind: ActionKind): string => ActionKind[kind] ?? String(kind);

/** The observer's Watch of a table from the start, kept running in the background until stopped. */
class Watcher {
  readonly events: WatchResponse[] = [];
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;
  private failure: unknown = null;

  constructor(station: Station, table: string) {
    this.done = (async () => {
      try {
        for await (const change of station.service.watch({ table, afterPosition: 0n }, { signal: this.abort.signal })) {
          this.events.push(change);
        }
      } catch (error) {
        if (!this.abort.signal.aborted) {
          this.failure = error;
        }
      }
    })();
  }

  /** Wait until an event of this kind has arrived (the table's "hand finished"), then stop the stream. */
  async stopAfter(kind: EventCase, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(kind) === 0 && this.failure === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.abort.abort();
    await this.done;
    if (this.failure !== null) {
      throw this.failure;
    }
    if (this.count(kind) === 0) {
      throw new Error(`no ${kind} event on the Watch stream in ${timeoutMs} ms (${this.events.length} changes)`);
    }
  }

  cases(): string[] {
    return this.events.map((change) => change.event?.event.case ?? "(none)");
  }

  /** The cards dealt, as the watcher may see them. */
  cardsDealt(): HandCardDealt[] {
    const out: HandCardDealt[] = [];
    for (const change of this.events) {
      if (change.event?.event.case === "handCardDealt") {
        out.push(change.event.event.value);
      }
    }
    return out;
  }

  count(kind: EventCase): number {
    return this.events.filter((change) => change.event?.event.case === kind).length;
  }
}

interface Step {
  seat: number | null;
  action: string;
  amount?: number;
  card?: string;
  target?: string;
}

/** The card due at a table, from its view: undefined when none is. */
function cardDue(view: TableView): NextCard | undefined {
  const next = view.detail.case === undefined ? undefined : view.detail.value.nextCard;
  return next !== undefined && next.target !== CardTarget.UNSPECIFIED ? next : undefined;
}

/** Whoever must act now at a table acts, or the card due is dealt; returns the step and the command's result. */
async function advance(
  dealer: Station,
  table: string,
  deck: Deck,
  decide: (legal: GetLegalActionsResponse) => Promise<[Step, CommandResult]> | undefined,
): Promise<[Step, CommandResult]> {
  const legal = await dealer.service.getLegalActions({ table });
  if (legal.seat !== undefined && legal.allowed.length > 0) {
    const decided = decide(legal);
    if (decided !== undefined) {
      return decided;
    }
  }
  const view = await dealer.view(table);
  const due = cardDue(view);
  if (due === undefined) {
    const allowed = legal.allowed.map(kindName).join(", ");
    throw new Error(`nothing to do at ${table}: no card due, seat ${legal.seat ?? "none"} may ${allowed || "nothing"}`);
  }
  const card = deck.next();
  const result = await dealer.act(table, { case: "deal", value: { card, source: CardSource.CROUPIER } });
  const step: Step = { seat: due.seat ?? null, action: "DEAL", card, target: CardTarget[due.target] };
  return [step, result];
}

/** One Texas Hold'em hand at a circle table, from opening the table to the last pot paid. */
async function holdem(options: Options, pit: Station, dealer: Station, observer: Station): Promise<object> {
  const table = options.holdemTable;
  await pit.service.openTable({
    commandId: pit.nextId(),
    table,
    game: Game.HOLDEM,
    seatCount: 6,
    settings: {
      case: "circle",
      value: { structure: BettingStructure.NO_LIMIT, blinds: [1n, 2n] },
    },
  });
  const buyIns: Record<number, bigint> = { 1: 200n, 2: 200n, 3: 200n };
  for (const [seat, amount] of Object.entries(buyIns)) {
    await dealer.service.seatPlayer({ commandId: dealer.nextId(), table, seat: Number(seat), chips: amount });
  }
  const watcher = new Watcher(observer, table);
  const started = await dealer.service.startHand({ commandId: dealer.nextId(), table, deckColour: DeckColour.RED });
  const hand = required(started.result, "StartHandResponse.result");

  // Hole cards, then burn + flop, burn + turn, burn + river: the table's next_card says where each goes.
  const deck = new Deck("As Kd 7c Ah Ks 2d 3c Qh Jh 4s 5d 9c 6h 8d");
  let raised = false;
  const steps: Step[] = [];
  let result: CommandResult | undefined;
  for (let i = 0; i < MAX_STEPS && !(result?.handComplete ?? false); i += 1) {
    const [step, answer] = await advance(dealer, table, deck, (legal) => {
      const seat = required(legal.seat, "GetLegalActionsResponse.seat");
      const may = (kind: ActionKind): boolean => legal.allowed.includes(kind);
      if (!raised && may(ActionKind.BET) && legal.raiseMin !== undefined) {
        raised = true; // the first to speak raises to the minimum, once: the others call it
        const amount = legal.raiseMin;
        return dealer.act(table, { case: "bet", value: { seat, amount } })
          .then((r) => [{ seat, action: "BET", amount: Number(amount) }, r]);
      }
      for (const kind of [ActionKind.CALL, ActionKind.CHECK, ActionKind.SHOW]) {
        if (may(kind)) {
          const command: OneCommand = kind === ActionKind.CALL ? { case: "call", value: { seat } }
            : kind === ActionKind.CHECK ? { case: "check", value: { seat } } : { case: "show", value: { seat } };
          return dealer.act(table, command).then((r) => [{ seat, action: kindName(kind) }, r]);
        }
      }
      return undefined;
    });
    steps.push(step);
    result = answer;
  }
  if (!(result?.handComplete ?? false)) {
    throw new Error(`the Hold'em hand was not complete after ${MAX_STEPS} steps`);
  }
  const view = await dealer.view(table);
  if (view.detail.case !== "circle") {
    throw new Error(`a Hold'em table answered with a ${view.detail.case} view`);
  }
  await watcher.stopAfter("tableHandFinished"); // the hand's last change of the table
  const dealt = watcher.cardsDealt();
  if (dealt.length === 0) {
    throw new Error("no HandCardDealt event arrived on the Watch stream");
  }
  const circle = view.detail.value;
  return {
    table: view.table,
    game: Game[view.game],
    family: GameFamily[view.family],
    handId: hand.handId,
    handNumber: hand.handNumber,
    handInProgress: view.handInProgress,
    phase: HandPhase[circle.phase],
    stacks: Object.fromEntries(Object.entries(circle.stacks).map(([seat, stack]) => [seat, Number(stack)])),
    buyIns: Object.fromEntries(Object.entries(buyIns).map(([seat, amount]) => [seat, Number(amount)])),
    steps,
    position: Number(view.position),
    watch: {
      events: watcher.events.length,
      cases: watcher.cases(),
      cardDealt: dealt.length,
      hiddenCards: dealt.filter((event) => event.card === "??").length,
      boardCards: dealt.filter((event) => event.kind === "board").map((event) => event.card),
      lastPosition: Number(watcher.events.at(-1)?.position ?? 0n),
      completed: watcher.count("handCompleted"),
    },
  };
}

/** One Texas Hold'em Bonus hand at a banked table: antes and a bonus, "no va más", cards and decisions, settled. */
async function holdemBonus(options: Options, pit: Station, dealer: Station): Promise<object> {
  const table = options.thbTable;
  await pit.service.openTable({
    commandId: pit.nextId(),
    table,
    game: Game.HOLDEM_BONUS,
    settings: { case: "holdemBonus", value: { anteMin: 5n } },
  });
  const started = await dealer.service.startHand({ commandId: dealer.nextId(), table, deckColour: DeckColour.RED });
  const hand = required(started.result, "StartHandResponse.result");
  const antes: Record<number, bigint> = { 1: 10n, 2: 10n };
  for (const [box, amount] of Object.entries(antes)) {
    await dealer.act(table, { case: "ante", value: { seat: Number(box), amount } });
  }
  await dealer.act(table, { case: "bonus", value: { seat: 1, amount: 5n } });
  await dealer.act(table, { case: "closeBets", value: {} });

  const deck = new Deck("As Kd 2c Ad Kc 3c 4h 7h 8s 9d 5h Jd 6c Qs");
  const steps: Step[] = [];
  let result: CommandResult | undefined;
  for (let i = 0; i < MAX_STEPS && !(result?.handComplete ?? false); i += 1) {
    const [step, answer] = await advance(dealer, table, deck, (legal) => {
      const seat = required(legal.seat, "GetLegalActionsResponse.seat");
      const may = (kind: ActionKind): boolean => legal.allowed.includes(kind);
      if (may(ActionKind.FLOP_BET)) {
        const amount = required(legal.bet, "GetLegalActionsResponse.bet"); // twice the ante (R-THB-5)
        return dealer.act(table, { case: "flopBet", value: { seat, amount } })
          .then((r) => [{ seat, action: "FLOP_BET", amount: Number(amount) }, r]);
      }
      if (seat === 1 && may(ActionKind.BET) && legal.bet !== undefined) {
        const amount = legal.bet; // box 1 bets the turn and the river (the ante, R-THB-6); the others check
        return dealer.act(table, { case: "bet", value: { seat, amount } })
          .then((r) => [{ seat, action: "BET", amount: Number(amount) }, r]);
      }
      if (may(ActionKind.CHECK)) {
        return dealer.act(table, { case: "check", value: { seat } }).then((r) => [{ seat, action: "CHECK" }, r]);
      }
      return undefined;
    });
    steps.push(step);
    result = answer;
  }
  if (!(result?.handComplete ?? false)) {
    throw new Error(`the Texas Hold'em Bonus hand was not settled after ${MAX_STEPS} steps`);
  }
  const view = await dealer.view(table);
  if (view.detail.case !== "banked") {
    throw new Error(`a Texas Hold'em Bonus table answered with a ${view.detail.case} view`);
  }
  // The pit's copy of the same hand: it sees every card (the visibility policy), for the summary.
  const pitView = await pit.view(table);
  const banked = view.detail.value;
  return {
    table: view.table,
    game: Game[view.game],
    family: GameFamily[view.family],
    handId: hand.handId,
    handNumber: hand.handNumber,
    handInProgress: view.handInProgress,
    stage: BankedStage[banked.stage],
    bankResult: Number(banked.bankResult),
    antes: Object.fromEntries(Object.entries(antes).map(([box, amount]) => [box, Number(amount)])),
    bonuses: { 1: 5 },
    steps,
    pitViewEqual: pitView.detail.case === "banked" && pitView.detail.value.bankResult === banked.bankResult,
    view: toJson(TableViewSchema, view), // the schema's canonical JSON (int64 as strings), as any client renders it
  };
}

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const pit = new Station("pit", opts, opts.pit);
  const dealer = new Station("dealer", opts, opts.dealer);
  const observer = new Station("observer", opts, opts.observer);
  const thbDealer = new Station("thb", opts, opts.thbDealer);
  const began = Date.now();
  const summary = {
    holdem: await holdem(opts, pit, dealer, observer),
    holdemBonus: await holdemBonus(opts, pit, thbDealer),
    milliseconds: 0,
  };
  summary.milliseconds = Date.now() - began;
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((error: unknown) => {
  if (error instanceof ConnectError) {
    const code = Code[error.code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase(); // as gRPC names it
    process.stderr.write(`refused: ${code} ${error.rawMessage}\n`);
  } else {
    process.stderr.write(`failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  }
  process.exit(1);
});
