// The pit's dashboard: live updates by server-sent events, and the dispute stepper. No framework, no network
// beyond this service. Text goes in with textContent; the only HTML inserted is the table panel the service drew.
"use strict";

// The page's words in its language (service/web/i18n.py): none for English, the texts and a row's words otherwise.
const WORDS = JSON.parse(document.getElementById("words")?.textContent || "{}");

function say(text, values) {
  // A text of the page in its language, its {names} filled in.
  let said = (WORDS.text && WORDS.text[text]) || text;
  for (const [name, value] of Object.entries(values || {})) said = said.split("{" + name + "}").join(String(value));
  return said;
}

function rowWord(word) {
  return (WORDS.row && WORDS.row[word]) || word;
}

function statusWords(status) {
  // A table's status as the floor says it: its state, then how many alerts hold it (R-HOLD-1).
  return status.split(", ").map((part) => {
    const held = /^HELD by (\d+) alerts?$/.exec(part);
    return held ? say(held[1] === "1" ? "HELD by {n} alert" : "HELD by {n} alerts", {n: held[1]}) : rowWord(part);
  }).join(", ");
}

function cellText(row, key) {
  const value = row[key];
  if (key === "alerts") return String(value ?? 0);
  if (key === "status") return statusWords(String(value ?? ""));
  if (key === "attention" || key === "deck") return value ? rowWord(String(value)) : "";
  if (key === "waiting") return value ? String(value).split(", ").map(rowWord).join(", ") : "";
  if (key === "thresholds") return String((WORDS.row ? row.thresholds_es : row.thresholds) ?? "");
  return String(value ?? "");
}

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf"]');
  return meta ? meta.content : "";
}

const FLOOR_KEYS = ["table", "game", "status", "attention", "waited", "dealer", "seats", "hand", "hands", "chips",
                    "per_hour", "deck", "shuffler", "alerts", "waiting", "thresholds"];
const ATTENTION = ["held", "alert", "waiting", "threshold"];  // what needs the pit, most urgent first
const ACCOUNT_KEYS = ["result", "accounts"];  // drawn from the accounts' overlay, for the pit only (R-ACC-5)
const ACCOUNTS_EVERY = 10000;
let accountsOverlay = {};  // table -> what its accounts say (slips waiting, the live band flag, the result so far)

function applyAccounts(line) {
  // A table whose slips wait for the pit's signature, or whose open shift already left its band (R-ACC-6), needs
  // the pit: it sorts with the decisions waiting, coloured as they are.
  const figures = accountsOverlay[line.dataset.table];
  const result = line.querySelector('td[data-key="result"]');
  const words = line.querySelector('td[data-key="accounts"]');
  if (!result || !words) return;
  const text = figures ? [figures.band ? say("outside the band") : "", ...figures.slips].filter(Boolean).join("; ")
    : "";
  const value = figures && figures.open ? String(figures.result) : "";
  if (result.textContent !== value) result.textContent = value;
  if (words.textContent !== text) words.textContent = text;
  const needs = Boolean(figures && (figures.band || figures.pit_signs));
  line.classList.toggle("attention-accounts", needs);
  if (needs && Number(line.dataset.priority) > 2) line.dataset.priority = 2;
}

async function followAccounts(table) {
  const body = table.tBodies[0];
  for (;;) {
    try {
      const reply = await fetch(table.dataset.accounts, {credentials: "same-origin", cache: "no-store"});
      if (reply.ok) {
        accountsOverlay = (await reply.json()).tables || {};
        for (const line of body.rows) applyAccounts(line);
        sortFloor(body);
        filterFloor(body);
      }
    } catch (error) {
      // the next turn asks again
    }
    await new Promise((resolve) => setTimeout(resolve, ACCOUNTS_EVERY));
  }
}

function waitedText(since) {
  // How long a table has needed the pit: "4 min", "1 h 12 min" ("" when nothing waits).
  if (!since) return "";
  const minutes = Math.max(0, Math.floor((Date.now() / 1000 - since) / 60));
  return minutes < 60 ? minutes + " min" : Math.floor(minutes / 60) + " h " + (minutes % 60) + " min";
}

let sortedBy = null;  // the column the pit clicked ({key, down}); null: what needs the pit first

function cellValue(line, key) {
  const text = line.querySelector('td[data-key="' + key + '"]')?.textContent.trim() || "";
  const number = Number(text.split("/")[0]);
  return text !== "" && !Number.isNaN(number) ? number : text.toLowerCase();
}

function sortFloor(body) {
  // What needs the pit first (held, an open alert, a decision waiting), the longest waiting first; then the tables
  // dealing, between hands, closed, each in the order they were opened — or by the column the pit clicked. Rows
  // move only when their place changes.
  const lines = Array.from(body.rows);
  const key = (line) => [Number(line.dataset.priority), Number(line.dataset.since) || 0, Number(line.dataset.order)];
  const sorted = lines.slice().sort((a, b) => {
    if (sortedBy) {
      const [x, y] = [cellValue(a, sortedBy.key), cellValue(b, sortedBy.key)];
      const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      if (order) return sortedBy.down ? -order : order;
    }
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  sorted.forEach((line, index) => { if (body.rows[index] !== line) body.insertBefore(line, body.rows[index]); });
}

function filterFloor(body) {
  const text = (document.getElementById("filter-text")?.value || "").toLowerCase();
  const game = document.getElementById("filter-game")?.value || "";
  const attentionOnly = document.getElementById("filter-attention")?.checked || false;
  for (const line of body.rows) {
    const shown = (!text || line.dataset.table.toLowerCase().includes(text)) && (!game || line.dataset.game === game)
      && (!attentionOnly || Number(line.dataset.priority) < ATTENTION.length);
    line.hidden = !shown;
  }
}

function refreshWaited(body) {
  for (const line of body.rows) {
    const cell = line.querySelector('td[data-key="waited"]');
    const value = waitedText(Number(line.dataset.since));
    if (cell && cell.textContent !== value) cell.textContent = value;
  }
}

// Sound and desktop notifications (issue 34, item 5): off until the pit turns them on at this browser (a sound
// needs the person's click; notifications his browser's permission). A table newly held, a new alert, an alert
// escalated to the games director each make one beep and one notification.
const signalled = {};  // table -> what was last signalled of it
window.pitSignals = [];  // what was signalled, for the browser tests

function signalsOn() {
  return window.localStorage.getItem("pit-signals") === "on";
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 880;
    volume.gain.value = 0.2;
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch (error) {
    // no sound on this machine: the notification and the row's colour remain
  }
}

function signal(row) {
  const what = row.escalated ? "escalated" : (row.attention === "held" || row.attention === "alert") ? row.attention : "";
  const before = signalled[row.table];
  signalled[row.table] = what;
  if (before === undefined || !what || what === before) return;  // the page's first drawing is no news
  const text = say(what === "escalated" ? "{table}: an alert waits past its time: the games director's too"
    : what === "held" ? "{table}: held until the pit acknowledges its alert" : "{table}: a new alert",
    {table: row.table});
  window.pitSignals.push(text);
  if (!signalsOn()) return;
  beep();
  if ("Notification" in window && Notification.permission === "granted") {
    new Notification("pokertable · pit", {body: text, tag: "pit-" + row.table});
  }
}

function signalsButton() {
  const button = document.getElementById("signals");
  if (!button) return;
  const show = () => {
    button.textContent = say(signalsOn() ? "Sound and notifications: on" : "Sound and notifications: off");
    button.setAttribute("aria-pressed", String(signalsOn()));
  };
  button.addEventListener("click", async () => {
    window.localStorage.setItem("pit-signals", signalsOn() ? "off" : "on");
    if (signalsOn() && "Notification" in window && Notification.permission === "default") {
      await Notification.requestPermission();
    }
    if (signalsOn()) beep();
    show();
  });
  show();
}

function followFloor(table) {
  const body = table.tBodies[0];
  const source = new EventSource(table.dataset.stream);
  source.addEventListener("rows", (message) => {
    const update = JSON.parse(message.data);
    for (const row of update.rows) {
      let line = document.getElementById("row-" + row.table);
      if (!line) {
        line = body.insertRow();
        line.id = "row-" + row.table;
        line.dataset.table = row.table;
        for (const key of table.dataset.accounts ? FLOOR_KEYS.concat(ACCOUNT_KEYS) : FLOOR_KEYS) {
          const cell = line.insertCell();
          cell.dataset.key = key;
        }
        const link = document.createElement("a");
        link.href = "/tables/" + encodeURIComponent(row.table);
        link.textContent = row.table;
        line.cells[0].appendChild(link);
      }
      for (const cell of line.cells) {
        const key = cell.dataset.key;
        if (key === "table" || key === "waited" || ACCOUNT_KEYS.includes(key)) continue;
        const value = cellText(row, key);
        if (cell.textContent !== value) cell.textContent = value;
      }
      line.dataset.position = row.position;
      line.dataset.game = row.game;
      line.dataset.priority = row.priority;
      line.dataset.order = row.order;
      line.dataset.since = row.since || 0;
      for (const name of ATTENTION) line.classList.toggle("attention-" + name, row.attention === name);
      line.classList.toggle("escalated", Boolean(row.escalated));
      signal(row);
      applyAccounts(line);
      line.classList.add("flash");
      setTimeout(() => line.classList.remove("flash"), 600);
    }
    sortFloor(body);
    refreshWaited(body);
    filterFloor(body);
    const count = document.getElementById("floor-alerts");
    if (count) {
      count.textContent = update.alerts + " " + say(update.alerts === 1 ? "open alert" : "open alerts");
      count.className = update.alerts ? "alert" : "";
    }
    const totals = document.getElementById("floor-totals");
    if (totals && update.totals) {
      const t = update.totals;
      totals.textContent = t.tables + " " + say("tables") + " · " + t.dealing + " " + say("dealing") + " · "
        + t.held + " " + say("held") + " · " + t.waiting + " " + say("waiting for the pit") + " · " + t.chips + " "
        + say("chips in play");
    }
  });
  const headers = Array.from(table.tHead.rows[0].cells);
  headers.forEach((header, index) => {
    const key = body.rows[0]?.cells[index]?.dataset.key || FLOOR_KEYS.concat(ACCOUNT_KEYS)[index];
    header.tabIndex = 0;
    header.classList.add("sortable");
    const choose = () => {
      sortedBy = sortedBy && sortedBy.key === key ? (sortedBy.down ? null : {key, down: true}) : {key, down: false};
      headers.forEach((other) => other.removeAttribute("aria-sort"));
      if (sortedBy) header.setAttribute("aria-sort", sortedBy.down ? "descending" : "ascending");
      sortFloor(body);
    };
    header.addEventListener("click", choose);
    header.addEventListener("keydown", (event) => { if (event.key === "Enter") choose(); });
  });
  const compact = document.getElementById("compact");
  const showCompact = () => {
    const on = window.localStorage.getItem("pit-compact") === "on";
    table.classList.toggle("compact", on);
    if (compact) compact.setAttribute("aria-pressed", String(on));
  };
  compact?.addEventListener("click", () => {
    window.localStorage.setItem("pit-compact", window.localStorage.getItem("pit-compact") === "on" ? "off" : "on");
    showCompact();
  });
  showCompact();
  for (const id of ["filter-text", "filter-game", "filter-attention"]) {
    document.getElementById(id)?.addEventListener("input", () => filterFloor(body));
  }
  document.getElementById("floor-filter")?.addEventListener("submit", (event) => event.preventDefault());
  refreshWaited(body);
  setInterval(() => refreshWaited(body), 30000);
  if (table.dataset.accounts) followAccounts(table);
  for (const line of body.rows) {  // what the page drew first is no news
    signalled[line.dataset.table] = line.classList.contains("escalated") ? "escalated"
      : line.classList.contains("attention-held") ? "held" : line.classList.contains("attention-alert") ? "alert" : "";
  }
  signalsButton();
}

function followPanel(panel) {
  const source = new EventSource(panel.dataset.stream);
  source.addEventListener("panel", (message) => {
    panel.innerHTML = message.data;  // drawn by the service (autoescaped template, SVG cards)
  });
}

function redrawOnChange(watch) {
  // A queue page (approvals, alerts) is drawn again when what it lists changes on the floor, unless the pit is
  // typing a reason in it.
  const key = watch.dataset.key;
  const rows = {};
  const source = new EventSource(watch.dataset.stream);
  let log = 0;  // the open alerts of the casino's log itself (tampering found by the audit): no table's row
  source.addEventListener("rows", (message) => {
    const update = JSON.parse(message.data);
    for (const row of update.rows) rows[row.table] = row;
    if (key === "alerts") log = update.log_alerts || 0;
    const digest = Object.keys(rows).filter((table) => rows[table][key]).sort()
      .map((table) => table + ":" + rows[table][key]).concat(log ? ["log:" + log] : []).join("|");
    const typing = Array.from(document.querySelectorAll('input[name="reason"]')).some((input) => input.value);
    if (digest !== watch.dataset.now && !typing) {
      source.close();
      window.location.reload();
    }
  });
}

function stepper(steps) {
  const all = Array.from(steps.querySelectorAll(".step"));
  const label = document.getElementById("step-label");
  let at = 0;
  const show = () => {
    all.forEach((step, index) => { step.hidden = index !== at; });
    if (label) label.textContent = say("Event {at} of {n}", {at: at + 1, n: all.length});
  };
  document.getElementById("step-prev")?.addEventListener("click", () => { if (at > 0) { at -= 1; show(); } });
  document.getElementById("step-next")?.addEventListener("click", () => {
    if (at < all.length - 1) { at += 1; show(); }
  });
  show();
}

document.addEventListener("DOMContentLoaded", () => {
  const floor = document.getElementById("floor");
  if (floor) followFloor(floor);
  const panel = document.getElementById("panel");
  if (panel && panel.dataset.stream) followPanel(panel);
  const shufflers = document.getElementById("shufflers");  // the shufflers' table, drawn again as hands end
  if (shufflers && shufflers.dataset.stream) followPanel(shufflers);
  const dealers = document.getElementById("dealers");  // the dealers' figures, drawn again as the floor moves
  if (dealers && dealers.dataset.stream) followPanel(dealers);
  const watch = document.getElementById("watch");
  if (watch) redrawOnChange(watch);
  const steps = document.getElementById("steps");
  if (steps) stepper(steps);
  for (const form of document.querySelectorAll("form[method=post]")) {
    if (!form.querySelector('input[name="csrf"]') && csrfToken()) {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = "csrf"; input.value = csrfToken();
      form.appendChild(input);
    }
  }
});
