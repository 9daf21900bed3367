// The pit's dashboard: live updates by server-sent events, and the dispute stepper. No framework, no network
// beyond this service. Text goes in with textContent; the only HTML inserted is the table panel the service drew.
"use strict";

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf"]');
  return meta ? meta.content : "";
}

function followFloor(table) {
  const source = new EventSource(table.dataset.stream);
  source.addEventListener("rows", (message) => {
    const update = JSON.parse(message.data);
    const body = table.tBodies[0];
    for (const row of update.rows) {
      let line = document.getElementById("row-" + row.table);
      if (!line) {
        line = body.insertRow();
        line.id = "row-" + row.table;
        line.dataset.table = row.table;
        for (const key of ["table", "game", "status", "hand", "hands", "chips", "per_hour", "deck", "shuffler",
                           "alerts", "waiting"]) {
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
        if (key === "table") continue;
        const value = row[key] === 0 && key === "alerts" ? "0" : String(row[key] ?? "");
        if (cell.textContent !== value) cell.textContent = value;
      }
      line.dataset.position = row.position;
      line.classList.add("flash");
      setTimeout(() => line.classList.remove("flash"), 600);
    }
    const count = document.getElementById("floor-alerts");
    if (count) {
      count.textContent = update.alerts + (update.alerts === 1 ? " open alert" : " open alerts");
      count.className = update.alerts ? "alert" : "";
    }
  });
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
    if (label) label.textContent = "Event " + (at + 1) + " of " + all.length;
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
