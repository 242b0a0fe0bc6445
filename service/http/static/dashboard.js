// gpu-breakeven dashboard: four views over the REST API of this same origin.
// Every control's state lives in the URL query, so any view can be shared as a link.
"use strict";

const VIEWS = ["prices", "freshness", "history", "calculator", "rank"];
const RANK_FIELDS = ["r_workload", "r_memory", "r_budget", "r_hours", "r_gpu", "r_market", "r_pricing"];
const PRICE_COLUMNS = [
  ["provider", "text"], ["product", "text"], ["region", "text"], ["accelerator", "text"],
  ["count", "int"], ["pricing", "text"], ["tier", "text"], ["usd_per_hour", "usd"],
  ["usd_per_accelerator_hour", "usd"], ["usd_per_reference_hour", "usd"],
  ["price_as_of", "text"],
];
const CALC_FIELDS = [
  "gpu", "hours", "workload", "gpus", "providers", "pricing", "region", "memory", "price",
  "watts", "electricity", "pue", "load", "host_cost", "host_watts", "utilization", "resale",
  "depreciation", "spot_overhead", "restart_hours", "platforms", "lifetime_years", "total_memory",
  "ref_gpu", "ref_count", "ref_hours", "model", "tokens", "method", "images", "epochs", "market",
  "hours_per_month", "months", "deadline_days", "max_instances",
  "site", "own", "discount_rate", "colo_usd_per_kw_month", "support_share",
  "staff_usd_per_node_year", "network_usd", "selling_fee",
];
// The ways to state the work (service/documents/work.py): the parameter that marks each in a
// shared link, so a reload opens the form the way it was filled.
const WAY_MARKERS = [
  ["reference_run", "ref_gpu"], ["vision", "images"], ["transformer", "tokens"], ["steady", "hours_per_month"],
];
const COLORS = ["#1f5fbf", "#b42318", "#1e7b34", "#9a6700", "#6941c6", "#0e7090", "#c4320a"];

const state = { offers: [], sort: { key: "usd_per_accelerator_hour", dir: 1 }, loaded: {} };
window.breakevenCharts = {};

const $ = (selector) => document.querySelector(selector);
const query = () => new URLSearchParams(window.location.search);

function setQuery(updates) {
  const params = query();
  for (const [key, value] of Object.entries(updates)) {
    if (value === "" || value === null || value === undefined) params.delete(key);
    else params.set(key, value);
  }
  window.history.replaceState(null, "", `?${params.toString()}`);
}

async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.detail || response.statusText);
  return body;
}

function usd(value, digits = 4) {
  return value === null || value === undefined ? "–" : `$${Number(value).toFixed(digits)}`;
}

function ago(seconds) {
  if (seconds === null || seconds === undefined) return "of unknown age";
  const units = [["day", 86400], ["hour", 3600], ["minute", 60]];
  for (const [name, size] of units) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? "" : "s"} ago`;
  }
  return "just now";
}

// -- views ------------------------------------------------------------------------------

function showView(name) {
  const view = VIEWS.includes(name) ? name : "prices";
  for (const panel of document.querySelectorAll("[data-panel]")) {
    panel.hidden = panel.dataset.panel !== view;
  }
  for (const link of document.querySelectorAll("nav a")) {
    if (link.dataset.view === view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  setQuery({ view });
  const loaders = { prices: loadPrices, freshness: loadFreshness, history: loadHistory,
    calculator: runCalculator, rank: loadRank };
  loaders[view]().catch((error) => showError(view, error));
}

function showError(view, error) {
  const target = { prices: "#prices-status", freshness: "#freshness-list",
    history: "#history-status", calculator: "#verdict", rank: "#rank-status" }[view];
  const element = $(target);
  element.textContent = `Error: ${error.message}`;
  element.classList.add("error");
}

// -- prices -----------------------------------------------------------------------------

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function fillForm(form, names) {
  const params = query();
  for (const name of names) {
    const field = form.elements.namedItem(name);
    if (field && params.has(name)) field.value = params.get(name);
  }
}

function fillSelect(select, values) {
  const current = select.value;
  const keep = select.options[0] && select.options[0].value === "" ? [select.options[0]] : [];
  select.replaceChildren(...keep);
  for (const value of values) select.append(new Option(value, value));
  if ([...select.options].some((o) => o.value === current)) select.value = current;
}

async function loadPrices() {
  const form = $("#prices-form");
  if (!state.loaded.pricesOptions) {
    const all = await getJSON("offers?limit=10000"); // the largest page: options to pick from
    fillSelect(form.elements.accelerator, [...new Set(all.offers.map((o) => o.accelerator))].sort());
    fillSelect(form.elements.provider, [...new Set(all.offers.map((o) => o.provider))].sort());
    fillForm(form, ["accelerator", "provider", "region", "pricing", "market", "workload", "ref"]);
    const params = query();
    if (params.has("sort")) state.sort.key = params.get("sort");
    if (params.has("dir")) state.sort.dir = Number(params.get("dir")) || 1;
    state.loaded.pricesOptions = true;
  }
  const values = formValues(form);
  setQuery(values);
  const params = new URLSearchParams();
  for (const key of ["accelerator", "provider", "region", "pricing", "market", "workload"]) {
    if (values[key]) params.set(key, values[key]);
  }
  params.set("gpu", values.ref || "rtx3090");
  params.set("limit", "10000"); // the largest page; the status says when there are more
  const body = await getJSON(`offers?${params.toString()}`);
  state.offers = body.offers;
  const age = body.prices.age_seconds;
  $("#prices-status").classList.remove("error");
  $("#prices-status").textContent =
    `${body.count < body.total ? `first ${body.count} of ${body.total}` : body.count} offers` +
    ` · oldest price ${ago(age)}${body.prices.stale ? " (stale)" : ""}`;
  renderPrices();
}

function sortedOffers() {
  const { key, dir } = state.sort;
  return [...state.offers].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (x === y) return 0;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * dir;
  });
}

function renderPrices() {
  const rows = sortedOffers();
  const body = $("#prices-table tbody");
  body.replaceChildren(
    ...rows.map((offer) => {
      const tr = document.createElement("tr");
      for (const [key, kind] of PRICE_COLUMNS) {
        const td = document.createElement("td");
        const value = offer[key];
        td.textContent = kind === "usd" ? usd(value) : value;
        if (kind !== "text") td.className = "num";
        if (key === "price_as_of") td.title = offer.source;
        tr.append(td);
      }
      return tr;
    }),
  );
  for (const th of document.querySelectorAll("#prices-table th")) {
    const key = th.querySelector("button").dataset.sort;
    if (key === state.sort.key) {
      th.setAttribute("aria-sort", state.sort.dir > 0 ? "ascending" : "descending");
    } else th.removeAttribute("aria-sort");
  }
}

function sortBy(key) {
  state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : 1 };
  setQuery({ sort: key, dir: state.sort.dir });
  renderPrices();
}

// Text a spreadsheet would run as a formula (OWASP CSV injection); numbers stay as they are.
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value) {
  let text = value === null || value === undefined ? "" : String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function downloadCsv() {
  const keys = PRICE_COLUMNS.map(([key]) => key);
  const lines = [keys.join(",")];
  for (const offer of sortedOffers()) lines.push(keys.map((k) => csvCell(offer[k])).join(","));
  const blob = new Blob([`${lines.join("\n")}\n`], { type: "text/csv" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = "offers.csv";
  document.body.append(link);
  link.click();
  link.remove();
}

// -- freshness --------------------------------------------------------------------------

async function loadFreshness() {
  const body = await getJSON("providers");
  const list = $("#freshness-list");
  list.replaceChildren(
    ...body.providers.map((p) => {
      const li = document.createElement("li");
      const failed = p.status === "failed";
      li.className = failed ? "failed" : p.stale ? "stale" : "fresh";
      const state = failed ? "Last refresh failed" : p.stale ? "Stale" : "Fresh";
      const run = p.current_run;
      const dates = p.prices.oldest_as_of === p.prices.newest_as_of
        ? `priced ${p.prices.oldest_as_of}`
        : `priced ${p.prices.oldest_as_of} to ${p.prices.newest_as_of}`;
      const unknown = p.prices.unknown_age ? ` (${p.prices.unknown_age} of unknown age)` : "";
      const served = run
        ? `serving ${run.row_count} offers loaded ${ago(p.age_seconds)}, ${dates}${unknown}`
        : "no prices yet";
      const strong = document.createElement("span");
      strong.className = "state";
      strong.textContent = `${p.name}: ${state}`;
      li.append(strong, ` · ${served}`);
      if (p.last_error) li.append(` · last error: ${p.last_error}`);
      return li;
    }),
  );
}

// -- history ----------------------------------------------------------------------------

async function loadHistory() {
  const form = $("#history-form");
  const select = form.elements.h_accelerator;
  if (!state.loaded.historyOptions) {
    const gpus = await getJSON("gpus");
    fillSelect(select, gpus.gpus.map((g) => g.id));
    select.value = query().get("h_accelerator") || "h100-sxm";
    if (query().has("since")) form.elements.since.value = query().get("since");
    state.loaded.historyOptions = true;
  }
  const values = formValues(form);
  setQuery(values);
  const params = new URLSearchParams({ accelerator: values.h_accelerator });
  if (values.since) params.set("since", values.since);
  const body = await getJSON(`offers/series?${params.toString()}`);
  // one line per provider and tier: its lowest price per accelerator-hour, day by day
  const datasets = body.lines.map((line, i) => ({
    label: `${line.provider} ${line.pricing}`,
    data: line.days.map((day, j) => ({ x: Date.parse(day), y: line.low[j] })),
    borderColor: COLORS[i % COLORS.length], backgroundColor: COLORS[i % COLORS.length],
    stepped: true, pointRadius: 3,
  }));
  const days = body.lines.flatMap((line) => line.days).sort();
  $("#history-status").classList.remove("error");
  $("#history-status").textContent = days.length
    ? `${body.lines.length} lines (provider and tier) from ${days[0]} to ${days[days.length - 1]}: ` +
      `lowest USD per accelerator-hour; recorded prices before ${body.recorded_until}, ` +
      "this service's own reads from then"
    : `no prices of ${body.accelerator} since ${body.since}`;
  drawChart("history", "#history-chart", {
    type: "line",
    data: { datasets },
    options: {
      animation: false, maintainAspectRatio: false, parsing: false,
      scales: {
        x: { type: "linear", ticks: { callback: (v) => new Date(v).toISOString().slice(0, 10) } },
        y: { title: { display: true, text: "USD per accelerator-hour (lowest)" } },
      },
    },
  });
  $("#history-changes tbody").replaceChildren(
    ...body.changes.map((c) => {
      const tr = document.createElement("tr");
      const cells = [c.day, c.provider, c.pricing, usd(c.low_before), usd(c.low),
        `${c.change > 0 ? "+" : ""}${(c.change * 100).toFixed(1)} %`];
      cells.forEach((text, i) => {
        const td = document.createElement("td");
        td.textContent = text;
        if (i >= 3) td.className = "num";
        tr.append(td);
      });
      return tr;
    }),
  );
}

function drawChart(name, selector, config) {
  if (window.breakevenCharts[name]) window.breakevenCharts[name].destroy();
  window.breakevenCharts[name] = new window.Chart($(selector), config);
}

// -- calculator -------------------------------------------------------------------------

async function runCalculator() {
  const form = $("#calc-form");
  if (!state.loaded.calcForm) {
    const params = query();
    const marked = WAY_MARKERS.find(([, name]) => params.has(name));
    setWay(marked ? marked[0] : "hours");
    fillForm(form, CALC_FIELDS.filter((name) => name !== "model"));
    const model = $(`#calc-form fieldset[data-way="${$("#calc-way").value}"] select[name="model"]`);
    if (model && params.has("model")) model.value = params.get("model");
    state.loaded.calcForm = true;
  }
  const values = formValues(form);
  const params = new URLSearchParams();
  for (const name of CALC_FIELDS) if (values[name]) params.set(name, values[name]);
  setQuery(Object.fromEntries(CALC_FIELDS.map((name) => [name, values[name] || ""])));
  params.set("sensitivity", "all"); // the tornado and the sentences below the answer
  const answer = await getJSON(`breakeven?${params.toString()}`);
  renderAnswer(answer);
  renderWhatIf(answer);
}

// One way to state the work at a time: the others' inputs are disabled, so the form sends
// only this way's (two ways at once is a 400), and a named model decides the workload.
function setWay(way) {
  $("#calc-way").value = way;
  for (const fieldset of document.querySelectorAll("#calc-form fieldset.way")) {
    const off = fieldset.dataset.way !== way;
    fieldset.hidden = off;
    fieldset.disabled = off;
  }
  $("#calc-workload").disabled = way === "transformer" || way === "vision";
}

function renderWork(w) {
  const line = $("#work");
  line.hidden = w.stated === "hours";
  if (line.hidden) return;
  const parts = [`Work: ${w.description} = ${w.gpu_hours.toFixed(1)} h on one ${w.gpu}`];
  if (w.flops) parts.push(` (${w.flops.toExponential(2)} FLOPs at ${w.utilization.toFixed(2)} of peak; anchor: ${w.utilization_anchor})`);
  if (w.memory_gb) parts.push(`; needs ${w.memory_gb.toFixed(1)} GB (${w.memory_note}); cards: ${w.cards_bought}`);
  line.textContent = `${parts.join("")}.`;
}

// The best offer of each pricing tier (on demand, 1- and 3-year terms, spot ...) beside the
// headline, each with its verdict against buying: a table a screen reader reads too.
function renderTiers(a) {
  const header = ["Tier", "Best offer", "Total", "Wall-clock h", "Against buying"];
  const rows = a.tiers.map((t) => {
    if (!t.best) return [t.tier, "none does the work", "", "", ""];
    const b = t.best;
    let verdict = t.verdict === "buy" ? "buying is cheaper" : "renting is cheaper";
    if (b.commitment) verdict += `; ${b.commitment.terms} × ${b.commitment.term_hours.toLocaleString()} h term paid, ${Math.round(b.commitment.used_instance_hours).toLocaleString()} h used`;
    else if (t.interruptible) verdict += "; may be taken back mid-run";
    const offer = `${b.instances > 1 ? `${b.instances} × ` : ""}${b.provider} ${b.product} (${b.region})`;
    return [t.tier, offer, usd(t.total_usd, 2), t.wall_clock_hours.toFixed(1), verdict];
  });
  $("#tiers").replaceChildren(
    ...[header, ...rows].map((cells, i) => {
      const tr = document.createElement("tr");
      if (i > 0 && a.tiers[i - 1].tier === a.compared_with.tier) tr.className = "headline";
      for (const cell of cells) {
        const td = document.createElement(i === 0 ? "th" : "td");
        td.textContent = cell;
        tr.append(td);
      }
      return tr;
    }),
  );
}

function renderAnswer(a) {
  const cheapest = a.rent[0];
  const verdict = $("#verdict");
  verdict.classList.remove("error");
  const hours = Number(a.hours.toFixed(1)).toLocaleString();
  const what = `${hours} h of ${a.workload} training on ${a.buy.gpus} × ${a.gpu}`;
  const winner = a.verdict === "buy"
    ? `Buying is cheaper for ${what}: it saves ${usd(a.savings_usd, 2)} against ${cheapest.product} (${cheapest.provider}).`
    : `Renting ${cheapest.product} (${cheapest.provider}, ${cheapest.tier}) is cheaper for ${what}: it saves ${usd(a.savings_usd, 2)}.`;
  const be = a.breakeven;
  const share = `${Math.round(a.assumptions.utilization * 100)}% utilization`;
  const point = !be
    ? " Buying never pays off: that rental costs less per hour than the card's electricity."
    : be.within_life
      ? ` Buying pays off after ${Math.round(be.hours).toLocaleString()} h of work (about ${Math.round(be.days).toLocaleString()} days at ${share}), within the cards' ${be.life_years}-year life.`
      : ` Buying does not pay off within the cards' ${be.life_years}-year life (${Math.round(be.life_hours).toLocaleString()} h of work at ${share}); the costs cross only after ${Math.round(be.crossing_hours).toLocaleString()} h.`;
  verdict.textContent = winner + point + (a.prices.stale ? " Some prices are stale." : "");
  renderWork(a.work);
  renderGates(a);
  renderTiers(a);

  const rows = [
    [a.buy.system ? `Buy: ${a.buy.system}` : "Buy: cards", usd(a.buy.purchase_usd, 2)],
    ["Buy: host", usd(a.buy.host_usd, 2)], ["Buy: network", usd(a.buy.network_usd, 2)],
    ["Buy: electricity", usd(a.buy.energy_usd, 2)],
    [`Buy: site (${a.buy.site}): colo, support, staff`, usd(a.buy.site_usd, 2)],
    ["Buy: resale", `−${usd(a.buy.resale_usd, 2)}`],
    ["Buy: total", usd(a.buy.total_usd, 2)],
    [`Buy: in today's money (discount rate ${a.money.discount_rate})`, usd(a.buy.present_usd, 2)],
    ...a.rent.slice(0, 3).map((r) => [`Rent: ${r.instances > 1 ? `${r.instances} x ` : ""}${r.provider} ${r.product} (${r.pricing}), ${r.wall_clock_hours.toFixed(1)} h`, `${usd(r.total_usd, 2)} (today ${usd(r.present_usd, 2)})`]),
    ...(a.own ? a.own.paths.map((p) => [`You own a ${a.own.gpu}: ${p.name}`, p.present_usd === null ? "cannot" : usd(p.present_usd, 2)]) : []),
  ];
  $("#breakdown").replaceChildren(
    ...rows.map(([label, value]) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.textContent = label;
      const td = document.createElement("td");
      td.className = "num";
      td.textContent = value;
      tr.append(th, td);
      return tr;
    }),
  );
  drawCostChart(a);
}

// What the answer kept out, so nothing is hidden: the platform gate's best offer, the
// memory gate's count, the measured alternative to an estimated speed, Colab's sessions.
function renderGates(a) {
  const leftOut = $("#left-out");
  leftOut.hidden = !a.left_out;
  if (a.left_out) {
    const best = a.left_out.best;
    leftOut.textContent = `Left out: ${a.left_out.offers} offers on ${a.left_out.platforms.join(", ")} (your code would need porting). ` +
      `Best of them: ${best.provider} ${best.product} (${best.pricing}) at ${usd(best.total_usd, 2)}, speed ${best.throughput.method}. Choose "all platforms" to compare them.`;
  }
  const gate = a.memory_gate;
  const need = [
    gate.per_accelerator_gb !== null ? `${gate.per_accelerator_gb} GB per accelerator` : null,
    gate.total_gb !== null ? `${gate.total_gb} GB in all` : null,
  ].filter(Boolean).join(" and ");
  const notes = [`Memory gate (${need}) removed ${gate.removed} offers.`];
  if (a.cheapest_measured) {
    const m = a.cheapest_measured;
    notes.push(`The cheapest rental's speed is estimated; cheapest with a measured speed: ${m.provider} ${m.product} at ${usd(m.total_usd, 2)}.`);
  }
  if (a.same_card) {
    const c = a.same_card.cheapest;
    notes.push(`The same card for rent: ${c.count} × ${a.gpu} on ${c.provider} (${c.market}, ${c.region}) at ${usd(c.usd_per_hour, 2)}/h does the work for ${usd(c.total_usd, 2)}, cheapest of ${a.same_card.offers} offers.`);
  }
  if (a.rent[0].sessions) notes.push(`${a.rent[0].provider}: ${a.rent[0].sessions.note}.`);
  notes.push(`Host: ${a.buy.host}; resale: ${a.buy.resale_basis.split(";")[0]}.`);
  $("#gates").textContent = notes.join(" ");
}

// What would have to be true: the sentences, and a tornado of what buying saves (negative:
// what renting saves) as each input moves one stated step down and up.
function renderWhatIf(a) {
  const box = $("#what-if");
  box.hidden = !a.sensitivity;
  if (!a.sensitivity) return;
  $("#sentences").replaceChildren(
    ...a.sensitivity.sentences.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }),
  );
  const signed = (swing) => (swing.verdict === "buy" ? swing.savings_usd : -swing.savings_usd);
  const rows = a.sensitivity.parameters;
  const now = a.verdict === "buy" ? a.savings_usd : -a.savings_usd;
  drawChart("tornado", "#tornado-chart", {
    type: "bar",
    data: {
      labels: rows.map((p) => `${p.parameter} (${p.step})`),
      datasets: [
        {
          label: "buying saves, USD (input one step down / up)",
          data: rows.map((p) => [signed(p.low), signed(p.high)]),
          backgroundColor: rows.map((p) => (p.flip === null ? "#b0b7c3" : COLORS[0])),
        },
        {
          label: "today", type: "scatter", data: rows.map((p) => ({ x: now, y: `${p.parameter} (${p.step})` })),
          borderColor: "#000", backgroundColor: "#f5a623", pointRadius: 4,
        },
      ],
    },
    options: {
      indexAxis: "y", animation: false, maintainAspectRatio: false,
      scales: { x: { title: { display: true, text: "buying saves, USD (negative: renting saves)" } } },
    },
  });
  const r = a.ranges;
  $("#ranges").textContent = `Rent side: ${r.offers.offers} offers of ${r.offers.accelerator} cost ${usd(r.offers.p10_usd, 0)} / ${usd(r.offers.p50_usd, 0)} / ${usd(r.offers.p90_usd, 0)} (P10/P50/P90); speeds ±${Math.round(r.speed.spread * 100)}% put the cheapest at ${usd(r.speed.low_usd, 0)}–${usd(r.speed.high_usd, 0)}; ${r.note}.`;
}

// Cost against calendar days: each side reaches the work's cost when it has done the work,
// at its own pace (the bought cards at `utilization`, a rental around the clock, several
// instances at once); the deadline every rental met is a vertical line.
function drawCostChart(a) {
  const model = a.buy.model;
  const breakeven = a.breakeven && a.breakeven.within_life ? a.breakeven.hours : null;
  const buyDaysPerHour = a.buy.wall_clock_hours / a.hours / 24; // calendar days per hour of work
  const deadlineDays = a.deadline.days;
  const lastWork = Math.max(a.hours * 1.2, breakeven ? breakeven * 1.3 : 0, 1);
  const steps = 60;
  const works = Array.from({ length: steps + 1 }, (_, i) => (lastWork * i) / steps);
  const buyCost = (h) => model.capex_usd - model.resale_start_usd * Math.exp(-model.resale_decay_per_hour * h)
    + model.energy_usd_per_hour * h;
  const datasets = [{
    label: `Buy ${a.buy.gpus} × ${a.gpu}`, data: works.map((h) => ({ x: h * buyDaysPerHour, y: buyCost(h) })),
    borderColor: COLORS[0], backgroundColor: COLORS[0], pointRadius: 0,
  }];
  a.rent.slice(0, 3).forEach((r, i) => {
    const daysPerHour = r.wall_clock_hours / a.hours / 24;
    const upTo = works.filter((h) => h <= a.hours); // a rental is quoted for this work only
    const cluster = r.instances > 1 ? `${r.instances} × ` : "";
    datasets.push({
      label: `Rent ${cluster}${r.provider} ${r.product} (${r.pricing})`,
      data: upTo.map((h) => ({ x: h * daysPerHour, y: r.usd_per_reference_hour * h })),
      borderColor: COLORS[i + 1], backgroundColor: COLORS[i + 1], pointRadius: 0, borderDash: [6, 4],
    });
  });
  if (deadlineDays !== null) {
    const top = Math.max(...datasets.flatMap((d) => d.data.map((p) => p.y)), 1);
    datasets.push({
      label: `Deadline: ${Math.round(deadlineDays).toLocaleString()} days`,
      data: [{ x: deadlineDays, y: 0 }, { x: deadlineDays, y: top }],
      borderColor: "#555", backgroundColor: "#555", pointRadius: 0, borderWidth: 1,
    });
  }
  const marker = $("#breakeven-marker");
  if (breakeven !== null) {
    datasets.push({
      label: "Break-even", type: "scatter", data: [{ x: breakeven * buyDaysPerHour, y: buyCost(breakeven) }],
      borderColor: "#000", backgroundColor: "#f5a623", pointRadius: 7, pointStyle: "rectRot",
    });
    marker.dataset.hours = String(breakeven);
    marker.textContent = `Break-even marked at ${Math.round(breakeven).toLocaleString()} h of work (day ${Math.round(breakeven * buyDaysPerHour).toLocaleString()} at the bought cards' pace).`;
  } else {
    marker.dataset.hours = "";
    marker.textContent = "No break-even point: renting stays cheaper.";
  }
  drawChart("calc", "#calc-chart", {
    type: "line",
    data: { datasets },
    options: {
      animation: false, maintainAspectRatio: false, parsing: false,
      scales: {
        x: { type: "linear", title: { display: true, text: "calendar days" } },
        y: { title: { display: true, text: "cumulative cost, USD" } },
      },
    },
  });
}

// -- which card? ------------------------------------------------------------------------

async function loadRank() {
  const form = $("#rank-form");
  if (!state.loaded.rankForm) {
    fillForm(form, RANK_FIELDS);
    state.loaded.rankForm = true;
  }
  const values = formValues(form);
  setQuery(Object.fromEntries(RANK_FIELDS.map((name) => [name, values[name] || ""])));
  const params = new URLSearchParams({ workload: values.r_workload, gpu: values.r_gpu || "rtx3090" });
  for (const [field, param] of [["r_memory", "memory"], ["r_budget", "budget"], ["r_hours", "hours"], ["r_market", "market"], ["r_pricing", "pricing"]]) {
    if (values[field]) params.set(param, values[field]);
  }
  const body = await getJSON(`rank?${params.toString()}`);
  const perDollar = body.ranked_by === "reference_hours_per_usd";
  const cards = [...body.cards, ...body.too_small];
  const metric = (c) => (perDollar ? c.reference_hours_per_usd : c.throughput_per_1000_usd);
  const color = (c) => (!c.fits ? "#b0b7c3" : !c.within_budget ? "#9a6700" : COLORS[0]);
  $("#rank-status").classList.remove("error");
  $("#rank-status").textContent = perDollar
    ? `Hours of ${body.gpu} work per dollar of ownership over ${body.hours} h (${body.workload}); grey: too little memory, amber: over budget.`
    : `Relative ${body.workload} throughput per $1,000 of purchase price; grey: too little memory, amber: over budget.`;
  drawChart("rank", "#rank-chart", {
    type: "bar",
    data: {
      labels: cards.map((c) => c.id),
      datasets: [{ label: perDollar ? "hours of work per USD" : "throughput per $1,000",
        data: cards.map(metric), backgroundColor: cards.map(color) }],
    },
    options: { animation: false, maintainAspectRatio: false, indexAxis: "y",
      scales: { y: { ticks: { autoSkip: false, font: { size: 10 } } } },
      plugins: { legend: { display: false } } },
  });
  const header = ["Provider", "Product", "Accelerator", "Tier", `USD per ${body.gpu} hour`, "Price as of"];
  const rows = body.rent.map((r) => [r.provider, r.product, r.accelerator, r.tier,
    usd(r.usd_per_reference_hour), r.price_as_of]);
  $("#rank-rent").replaceChildren(
    ...[header, ...rows].map((cells, i) => {
      const tr = document.createElement("tr");
      for (const cell of cells) {
        const td = document.createElement(i === 0 ? "th" : "td");
        td.textContent = cell;
        tr.append(td);
      }
      return tr;
    }),
  );
}

// -- wiring -----------------------------------------------------------------------------

function init() {
  for (const link of document.querySelectorAll("nav a")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      showView(link.dataset.view);
    });
  }
  $("#prices-form").addEventListener("change", () => loadPrices().catch((e) => showError("prices", e)));
  $("#prices-form").addEventListener("submit", (event) => event.preventDefault());
  for (const button of document.querySelectorAll("#prices-table th button")) {
    button.addEventListener("click", () => sortBy(button.dataset.sort));
  }
  $("#download-csv").addEventListener("click", downloadCsv);
  $("#history-form").addEventListener("change", () => loadHistory().catch((e) => showError("history", e)));
  $("#rank-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadRank().catch((e) => showError("rank", e));
  });
  $("#calc-way").addEventListener("change", (event) => setWay(event.target.value));
  $("#calc-form").addEventListener("submit", (event) => {
    event.preventDefault();
    runCalculator().catch((e) => showError("calculator", e));
  });
  showView(query().get("view") || "prices");
}

document.addEventListener("DOMContentLoaded", init);
