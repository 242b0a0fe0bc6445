// gpu-breakeven dashboard: five views over the REST API of this same origin.
// Every control's state lives in the URL query, so any view can be shared as a link.
// Text goes through t(): the page carries its language's catalog (service/i18n) as data,
// keyed by the English text; numbers, money and dates are written for the page's language.
"use strict";

const VIEWS = ["prices", "freshness", "history", "calculator", "rank"];
const RANK_FIELDS = ["r_workload", "r_memory", "r_budget", "r_hours", "r_gpu", "r_market", "r_pricing", "r_platforms"];
const CALC_FIELDS = [
  "gpu", "hours", "workload", "gpus", "providers", "pricing", "region", "memory", "price",
  "watts", "electricity", "pue", "load", "host_cost", "host_watts", "utilization", "resale",
  "depreciation", "spot_overhead", "restart_hours", "platforms", "lifetime_years", "total_memory",
  "ref_gpu", "ref_count", "ref_hours", "model", "tokens", "method", "images", "epochs", "market",
  "hours_per_month", "months", "deadline_days", "max_instances", "for_hours", "rent_gpu",
  "site", "own", "discount_rate", "colo_usd_per_kw_month", "support_share",
  "staff_usd_per_node_year", "network_usd", "selling_fee", "country", "state",
];
// The ways to state the work (service/documents/work.py): the parameter that marks each in a
// shared link, so a reload opens the form the way it was filled.
const WAY_MARKERS = [
  ["reference_run", "ref_gpu"], ["vision", "images"], ["transformer", "tokens"], ["steady", "hours_per_month"],
  ["capacity", "for_hours"],
];
const COLORS = ["#1f5fbf", "#b42318", "#1e7b34", "#9a6700", "#6941c6", "#0e7090", "#c4320a"];

const state = { offers: [], sort: { key: "usd_per_accelerator_hour", dir: 1 }, page: 0, loaded: {} };
window.breakevenCharts = {};

const $ = (selector) => document.querySelector(selector);
const query = () => new URLSearchParams(window.location.search);

// -- the reader's language and currency -------------------------------------------------

const LANG = document.documentElement.lang || "en";
const MESSAGES = JSON.parse(document.getElementById("messages").textContent || "{}");

function t(text, values = {}) {
  const template = Object.hasOwn(MESSAGES, text) ? MESSAGES[text] : text;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

const formats = new Map();
function numberFormat(options) {
  const key = JSON.stringify(options);
  if (!formats.has(key)) formats.set(key, new Intl.NumberFormat(LANG, options));
  return formats.get(key);
}

// A count or a measure, grouped as the language groups digits.
function num(value, digits = 0) {
  return numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

// A measure as a person writes it: 40 GB, 18.2 GB, 700 h, 1,234.5 h.
function measure(value) {
  return numberFormat({ maximumFractionDigits: 1 }).format(value);
}

function amount(value, code, digits) {
  if (value === null || value === undefined) return "–";
  return numberFormat({ style: "currency", currency: code, minimumFractionDigits: digits,
    maximumFractionDigits: digits }).format(value);
}

// The currency the amounts are shown in: the answer gives every amount named usd a sibling
// in the currency asked (total_usd -> total_cny); one without it is shown in dollars.
const currency = () => $("#currency").value;
const USD_NAME = /(^|_)usd(_|$)/;

function localKey(key) {
  const code = currency();
  return code === "USD" ? key : key.replace(USD_NAME, (m, a, b) => `${a}${code.toLowerCase()}${b}`);
}

function money(holder, key, digits = 2) {
  const local = localKey(key);
  if (local !== key && holder[local] !== undefined) return amount(holder[local], currency(), digits);
  return amount(holder[key], "USD", digits);
}

function moneyValue(holder, key) {
  const local = localKey(key);
  return local !== key && holder[local] !== undefined ? holder[local] : holder[key];
}

// A day as the language writes it; a month or a year alone ("2026-08") is shown as it came,
// never turned into its first day.
function day(iso) {
  if (!iso || LANG === "en" || !/^\d{4}-\d{2}-\d{2}/.test(String(iso))) return iso || "–";
  const when = new Date(`${String(iso).slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(when.getTime())) return iso;
  return new Intl.DateTimeFormat(LANG, { dateStyle: "long", timeZone: "UTC" }).format(when);
}

// Words the answer gives as values, in the reader's language.
const workloadName = (w) => ({ transformer: t("transformer"), cnn: t("cnn"), rnn: t("rnn") }[w] || w);
const siteName = (site) => ({ home: t("home"), office: t("office"), colo: t("colocation") }[site] || site);
const methodName = (m) => ({ measured: t("measured"), adjusted: t("adjusted"), estimated: t("estimated"),
  "measured-locally": t("measured here") }[m] || m);

// The identifiers an answer gives (pricing tiers, markets, host kinds), in the reader's
// language: English shows them as the API names them.
const tierName = (x) => ({ on_demand: t("on_demand"), spot: t("spot"), interruptible: t("interruptible"),
  reserved_1m: t("reserved_1m"), reserved_3m: t("reserved_3m"), reserved_6m: t("reserved_6m"),
  reserved_1y: t("reserved_1y"), reserved_2y: t("reserved_2y"), reserved_3y: t("reserved_3y"),
  reserved_5y: t("reserved_5y"), compute_units: t("compute_units") }[x] || x);
const marketName = (x) => ({ cloud: t("cloud"), secure: t("secure"), verified: t("verified"),
  community: t("community") }[x] || x);
const hostName = (x) => ({ desktop: t("desktop"), workstation: t("workstation"), server: t("server") }[x] || x);
// A rental as a person reads it: the answer's name for it in English ("2 x NVIDIA GeForce RTX
// 5090 on a Vast.ai verified host in US"); elsewhere its provider, product and region.
const offerName = (r) => (LANG === "en" && r.name ? r.name : `${r.provider} ${r.product} (${r.region})`);

// A price's date: a day, a month, or "before" a day for a row its source did not date.
function priceDay(text) {
  const before = /^before (\d{4}-\d{2}-\d{2})$/.exec(text || "");
  return before ? t("before {day}", { day: day(before[1]) }) : day(text);
}

function pct(share, digits = 0) {
  return numberFormat({ style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(share);
}

function setQuery(updates) {
  const params = query();
  for (const [key, value] of Object.entries(updates)) {
    if (value === "" || value === null || value === undefined) params.delete(key);
    else params.set(key, value);
  }
  window.history.replaceState(null, "", `?${params.toString()}`);
  for (const link of document.querySelectorAll("a[data-lang]")) {
    const other = new URLSearchParams(params);
    other.set("lang", link.dataset.lang);
    link.href = `?${other.toString()}`;
  }
}

async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.detail || response.statusText);
  return body;
}

function ago(seconds) {
  if (seconds === null || seconds === undefined) return t("of unknown age");
  const units = [
    [86400, (n) => (n === 1 ? t("{n} day ago", { n }) : t("{n} days ago", { n: num(n) }))],
    [3600, (n) => (n === 1 ? t("{n} hour ago", { n }) : t("{n} hours ago", { n: num(n) }))],
    [60, (n) => (n === 1 ? t("{n} minute ago", { n }) : t("{n} minutes ago", { n: num(n) }))],
  ];
  for (const [size, say] of units) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return say(n);
  }
  return t("just now");
}

// -- tables -----------------------------------------------------------------------------

// A table's columns, written once: its headings and every row's cells are built from the
// same list, so a value can never sit under another column's heading. `phone`: the column
// stays on a narrow screen (the rest fold away; the CSV has every column).
const PRICE_COLUMNS = [
  { key: "provider", heading: t("Provider"), kind: "text", phone: true },
  { key: "product", heading: t("Product"), kind: "text" }, // long ids: a phone's width is the price's
  { key: "region", heading: t("Region"), kind: "text" },
  { key: "accelerator", heading: t("Accelerator"), kind: "text", phone: true },
  { key: "count", heading: t("n"), kind: "int" },
  { key: "pricing", heading: t("Pricing"), kind: "tier" },
  { key: "tier", heading: t("Tier"), kind: "tier" },
  { key: "usd_per_hour", heading: t("per hour"), kind: "usd" },
  { key: "usd_per_accelerator_hour", heading: t("per accelerator-hour"), kind: "usd", phone: true },
  { key: "usd_per_reference_hour", heading: t("per unit of work"), kind: "usd" },
  { key: "price_as_of", heading: t("Price as of"), kind: "day", phone: true },
];
const CHANGE_COLUMNS = [
  { key: "day", heading: t("Day"), kind: "day", phone: true },
  { key: "provider", heading: t("Provider"), kind: "text", phone: true },
  { key: "pricing", heading: t("Tier"), kind: "tier", phone: true },
  { key: "low_before", heading: t("Before (USD/h)"), kind: "usd", phone: true },
  { key: "low", heading: t("After (USD/h)"), kind: "usd", phone: true },
  { key: "change", heading: t("Change"), kind: "pct", phone: true },
];

// The heading row of a column table; `sort` names the key the rows are sorted by, if any
// column is sortable (a button in each heading).
function columnHead(selector, columns, sortable) {
  const tr = document.createElement("tr");
  for (const column of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.dataset.key = column.key;
    if (!column.phone) th.className = "wide-only";
    if (sortable) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.sort = column.key;
      button.textContent = column.heading;
      th.append(button);
    } else th.textContent = column.heading;
    tr.append(th);
  }
  $(`${selector} thead`).replaceChildren(tr);
}

// The rows of a column table: cell(item, column) writes each value.
function columnRows(selector, columns, items, cell) {
  $(`${selector} tbody`).replaceChildren(
    ...items.map((item) => {
      const tr = document.createElement("tr");
      for (const column of columns) {
        const td = document.createElement("td");
        td.dataset.key = column.key;
        td.textContent = cell(item, column);
        td.className = [["text", "day", "tier"].includes(column.kind) ? "" : "num",
          column.phone ? "" : "wide-only"].filter(Boolean).join(" ");
        tr.append(td);
      }
      return tr;
    }),
  );
}

// -- views ------------------------------------------------------------------------------

function showView(name) {
  const view = VIEWS.includes(name) ? name : "prices";
  for (const panel of document.querySelectorAll("[data-panel]")) {
    panel.hidden = panel.dataset.panel !== view;
  }
  for (const link of document.querySelectorAll("header nav a")) {
    if (link.dataset.view === view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  setQuery({ view });
  const loaders = { prices: loadPrices, freshness: loadFreshness, history: loadHistory,
    calculator: runCalculator, rank: loadRank };
  loaders[view]().catch((error) => showError(view, error));
}

// An error replaces the view's answer: what was on screen answered another question.
const ANSWER_PARTS = {
  prices: ["#prices-table tbody"],
  history: ["#history-changes tbody", "#history-lines"],
  calculator: ["#breakdown", "#tiers", "#sentences", "#ranges", "#breakeven-marker", "#gates", "#work", "#left-out", "#calc-chart-table"],
  rank: ["#rank-rent", "#rank-cards"],
};
const ANSWER_CHARTS = { history: ["history"], calculator: ["calc", "tornado"], rank: ["rank"] };

function showError(view, error) {
  const target = { prices: "#prices-status", freshness: "#freshness-list",
    history: "#history-status", calculator: "#verdict", rank: "#rank-status" }[view];
  for (const selector of ANSWER_PARTS[view] || []) {
    const part = $(selector);
    if (part) part.replaceChildren();
  }
  for (const name of ANSWER_CHARTS[view] || []) {
    if (window.breakevenCharts[name]) window.breakevenCharts[name].destroy();
    delete window.breakevenCharts[name];
  }
  if (view === "calculator") $("#what-if").hidden = true;
  const element = $(target);
  element.textContent = t("Error: {message}", { message: error.message });
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

// The Prices view asks the server for one page at a time, filtered and sorted there: the
// whole catalog is never downloaded, and the CSV link gives the same rows.
const PAGE_ROWS = 100;

function pricesQuery(values) {
  const params = new URLSearchParams();
  for (const key of ["accelerator", "provider", "region", "pricing", "market", "workload"]) {
    if (values[key]) params.set(key, values[key]);
  }
  params.set("gpu", values.ref || "rtx3090");
  params.set("currency", currency());
  params.set("sort", `${state.sort.dir < 0 ? "-" : ""}${state.sort.key}`);
  params.set("limit", String(PAGE_ROWS));
  params.set("offset", String(state.page * PAGE_ROWS));
  return params;
}

async function loadPrices() {
  const form = $("#prices-form");
  if (!state.loaded.pricesOptions) {
    fillForm(form, ["accelerator", "provider", "region", "pricing", "market", "workload", "ref"]);
    const params = query();
    if (params.has("sort")) state.sort.key = params.get("sort");
    if (params.has("dir")) state.sort.dir = Number(params.get("dir")) || 1;
    state.page = Math.max(0, Number(params.get("page")) || 0);
    state.loaded.pricesOptions = true;
  }
  const values = formValues(form);
  setQuery({ ...values, page: state.page ? String(state.page) : "" });
  const params = pricesQuery(values);
  const body = await getJSON(`offers?${params.toString()}`);
  state.offers = body.offers;
  const first = state.page * PAGE_ROWS;
  const status = $("#prices-status");
  status.classList.remove("error");
  const count = body.total > body.count
    ? t("offers {first}–{last} of {total}", { first: num(first + 1), last: num(first + body.count), total: num(body.total) })
    : t("{count} offers", { count: num(body.count) });
  const stale = body.prices.stale ? ` ${t("(stale)")}` : "";
  const fx = body.fx && body.fx.currency !== "USD" ? ` · ${fxNote(body.fx)}` : "";
  status.textContent = `${count} · ${t("oldest price {age}", { age: ago(body.prices.age_seconds) })}${stale}${fx}`;
  $("#prices-prev").disabled = state.page === 0;
  $("#prices-next").disabled = first + body.count >= body.total;
  params.set("format", "csv");
  $("#download-csv").href = `offers?${params.toString()}`;
  renderPrices();
}

function renderPrices() {
  columnRows("#prices-table", PRICE_COLUMNS, state.offers, (offer, { key, kind }) =>
    kind === "usd" ? money(offer, key, 4) : kind === "day" ? priceDay(offer[key])
      : kind === "tier" ? tierName(offer[key]) : String(offer[key]));
  for (const td of document.querySelectorAll('#prices-table td[data-key="price_as_of"]')) {
    td.title = state.offers[td.parentElement.sectionRowIndex].source;
  }
  for (const th of document.querySelectorAll("#prices-table th")) {
    const key = th.querySelector("button").dataset.sort;
    if (key === state.sort.key) {
      th.setAttribute("aria-sort", state.sort.dir > 0 ? "ascending" : "descending");
    } else th.removeAttribute("aria-sort");
  }
}

function sortBy(key) {
  state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : 1 };
  state.page = 0;
  setQuery({ sort: key, dir: state.sort.dir });
  loadPrices().catch((e) => showError("prices", e));
}

function turnPage(step) {
  state.page = Math.max(0, state.page + step);
  loadPrices().catch((e) => showError("prices", e));
}

// -- freshness --------------------------------------------------------------------------

// whether scheduled refreshes run at all: without a scheduler every source goes stale
function schedulerSentence(scheduler) {
  const known = scheduler.quiet_seconds !== null;  // another role's session hides its age
  if (scheduler.active) {
    return known
      ? t("Scheduled refreshes are running (the scheduler last checked in {age}).", { age: ago(scheduler.quiet_seconds) })
      : t("Scheduled refreshes are running.");
  }
  return known
    ? t("The scheduler last checked in {age} and seems stuck: scheduled refreshes are not running.", { age: ago(scheduler.quiet_seconds) })
    : t("No scheduler is running: prices refresh only when someone asks for it.");
}

async function loadFreshness() {
  const body = await getJSON("providers");
  const line = $("#freshness-scheduler");
  line.textContent = schedulerSentence(body.scheduler);
  line.className = body.scheduler.active ? "fresh" : "stale";
  const list = $("#freshness-list");
  list.replaceChildren(
    ...body.providers.map((p) => {
      const li = document.createElement("li");
      const failed = p.status === "failed";
      li.className = failed ? "failed" : p.stale ? "stale" : "fresh";
      const state = failed ? t("Last refresh failed") : p.stale ? t("Stale") : t("Fresh");
      const run = p.current_run;
      const dates = p.prices.oldest_as_of === p.prices.newest_as_of
        ? t("priced {day}", { day: priceDay(p.prices.oldest_as_of) })
        : t("priced {first} to {last}", { first: priceDay(p.prices.oldest_as_of), last: priceDay(p.prices.newest_as_of) });
      const unknown = p.prices.unknown_age
        ? ` ${t("({count} of unknown age)", { count: num(p.prices.unknown_age) })}` : "";
      const served = run
        ? t("serving {count} offers loaded {age}, {dates}", { count: num(run.row_count), age: ago(p.age_seconds), dates }) + unknown
        : t("no refresh of its own has landed yet: its prices, if any, come from the bundled snapshot");
      const strong = document.createElement("span");
      strong.className = "state";
      strong.textContent = `${p.name}: ${state}`;
      li.append(strong, ` · ${served}`);
      if (p.last_error) {
        // one plain sentence; the source's own error text folded below it, wrapped to the screen
        li.append(` · ${t("The last refresh failed; the catalog keeps the prices it had.")}`);
        const details = document.createElement("details");
        const summary = document.createElement("summary");
        summary.textContent = t("What went wrong");
        const error = document.createElement("p");
        error.className = "error-detail";
        error.textContent = p.last_error;
        details.append(summary, error);
        li.append(details);
      }
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
    label: `${line.provider} ${tierName(line.pricing)}`,
    data: line.days.map((day, j) => ({ x: Date.parse(day), y: line.low[j] })),
    borderColor: COLORS[i % COLORS.length], backgroundColor: COLORS[i % COLORS.length],
    stepped: true, pointRadius: 3,
  }));
  const days = body.lines.flatMap((line) => line.days).sort();
  $("#history-status").classList.remove("error");
  $("#history-status").textContent = days.length
    ? t("{lines} lines (provider and tier) from {first} to {last}: lowest USD per accelerator-hour; recorded prices before {until}, this service's own reads from then", {
      lines: num(body.lines.length), first: day(days[0]), last: day(days[days.length - 1]), until: day(body.recorded_until) })
    : t("no prices of {accelerator} since {since}", { accelerator: body.accelerator, since: day(body.since) });
  drawChart("history", "#history-chart", {
    type: "line",
    data: { datasets },
    options: {
      animation: false, maintainAspectRatio: false, parsing: false,
      scales: {
        x: { type: "linear", ticks: { callback: (v) => day(new Date(v).toISOString().slice(0, 10)) } },
        y: { title: { display: true, text: t("USD per accelerator-hour (lowest)") } },
      },
    },
  });
  fillTable("#history-lines", [t("Provider"), t("Tier"), t("From"), t("To"), t("Lowest"), t("Last")],
    body.lines.map((line) => [line.provider, tierName(line.pricing), day(line.days[0]), day(line.days[line.days.length - 1]),
      amount(Math.min(...line.low), "USD", 4), amount(line.low[line.low.length - 1], "USD", 4)]));
  columnRows("#history-changes", CHANGE_COLUMNS, body.changes, (c, { key, kind }) => {
    const value = c[key];
    if (kind === "usd") return amount(value, "USD", 4);
    if (kind === "pct") return `${value > 0 ? "+" : ""}${pct(value, 1)}`;
    if (kind === "tier") return tierName(value);
    return kind === "day" ? day(value) : value;
  });
}

// A table from a header and rows (beside every chart, its figures for every reader);
// rowClass(i) names a class for the i-th row of figures, where one stands out.
function fillTable(selector, header, rows, rowClass = () => "") {
  $(selector).replaceChildren(
    ...[header, ...rows].map((cells, i) => {
      const tr = document.createElement("tr");
      if (i > 0 && rowClass(i - 1)) tr.className = rowClass(i - 1);
      for (const cell of cells) {
        const td = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) td.scope = "col";
        td.textContent = cell;
        tr.append(td);
      }
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
  params.set("currency", currency()); // the amounts the form states are in it too
  params.set("sensitivity", "all"); // the tornado and the sentences below the answer
  params.set("detail", "full"); // the chart's curves, the assumptions, every listed rental
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
  // the job's description and the memory note are the answer's own words (English)
  let text = t("Work: {description} = {hours} h on one {gpu}", {
    description: w.description, hours: num(w.gpu_hours, 1), gpu: w.gpu });
  if (w.flops) {
    text += ` ${t("({flops} FLOPs at {share} of peak; anchor: {anchor})", {
      flops: w.flops.toExponential(2), share: num(w.utilization, 2), anchor: w.utilization_anchor })}`;
  }
  if (w.memory_gb) {
    text += t("; needs {gb} GB ({note}); cards: {cards}", {
      gb: num(w.memory_gb, 1), note: w.memory_note, cards: w.cards_bought });
  }
  line.textContent = `${text}${t(".")}`;
}

// The best offer of each pricing tier (on demand, each committed term, spot ...) beside the
// headline, each with its verdict against buying: a table a screen reader reads too. A term
// no offer of does the work is left out (seven terms, most empty for a given card).
function renderTiers(a) {
  const header = [t("Tier"), t("Best offer"), t("Total"), t("Wall-clock h"), t("Against buying")];
  const shown = a.tiers.filter((tier) => tier.best || !tier.tier.startsWith("reserved_"));
  const rows = shown.map((tier) => {
    if (!tier.best) return [tierName(tier.tier), t("none does the work"), "", "", ""];
    const b = tier.best;
    let verdict = tier.verdict === "buy" ? t("buying is cheaper") : t("renting is cheaper");
    if (b.commitment) {
      verdict += t("; {terms} × {term} h term paid, {used} h used", { terms: b.commitment.terms,
        term: num(b.commitment.term_hours), used: num(b.commitment.used_instance_hours) });
    } else if (tier.interruptible) verdict += t("; may be taken back mid-run");
    const offer = `${b.instances > 1 ? `${b.instances} × ` : ""}${b.provider} ${b.product} (${b.region})`;
    return [tierName(tier.tier), offer, money(tier, "total_usd"), num(tier.wall_clock_hours, 1), verdict];
  });
  fillTable("#tiers", header, rows, (i) => (shown[i].tier === a.compared_with.tier ? "headline" : ""));
}

function renderAnswer(a) {
  const cheapest = a.rent[0];
  const verdict = $("#verdict");
  verdict.classList.remove("error");
  const what = t("{hours} h of {workload} training on {gpus} × {gpu}", {
    hours: measure(a.hours), workload: workloadName(a.workload), gpus: a.buy.gpus, gpu: a.gpu });
  const winner = a.verdict === "buy"
    ? t("Buying is cheaper for {what}: it saves {amount} against {name}.", {
      what, amount: money(a, "savings_usd"), name: offerName(cheapest) })
    : t("Renting {name} ({tier}) is cheaper for {what}: it saves {amount}.", {
      what, amount: money(a, "savings_usd"), name: offerName(cheapest), tier: tierName(cheapest.tier) });
  const be = a.breakeven;
  const share = pct(a.assumptions.utilization);
  const point = a.payoff.startsWith("outlasts-")
    ? t("The work outlasts the cards' {years}-year life: {sets} sets of cards, one bought as each life ends (at today's price), and {side} costs less in all.", {
      years: num(a.assumptions.lifetime_years, a.assumptions.lifetime_years % 1 ? 1 : 0),
      sets: a.buy.replacements + 1, side: a.payoff === "outlasts-buy" ? t("buying") : t("renting") })
    : a.payoff === "committed"
    ? t("Buying costs less for this work: the rental's committed term is paid whole, used or not.")
    : a.payoff === "this-work"
    ? t("Buying costs less for this much work.")
    : !be
    ? neverBecause(a.never_because)
    : be.within_life
      ? t("Buying pays off after {hours} h of work (about {days} days at {share} utilization), within the cards' {years}-year life.", {
        hours: measure(be.hours), days: measure(be.days), share, years: num(be.life_years, be.life_years % 1 ? 1 : 0) })
      : t("Buying does not pay off within the cards' {years}-year life ({life} h of work at {share} utilization); the costs cross only after {crossing} h.", {
        years: num(be.life_years, be.life_years % 1 ? 1 : 0), life: num(be.life_hours), share, crossing: num(be.crossing_hours) });
  const stale = a.prices.stale ? t("Some prices are stale.") : "";
  verdict.textContent = sentences([winner, point, stale, fxNote(a.fx)]);
  renderWork(a.work);
  renderGates(a);
  renderTiers(a);
  showDefaults(a);

  const rent = (r) => t("Rent: {name} ({pricing}), {hours} h", {
    name: offerName(r), pricing: tierName(r.pricing), hours: num(r.wall_clock_hours, 1) });
  const rows = [
    [a.buy.system ? t("Buy: {system}", { system: a.buy.system }) : t("Buy: cards"), money(a.buy, "purchase_usd")],
    ...(a.buy.replacements ? [[t("Buy: {sets} later sets of cards", { sets: a.buy.replacements }), money(a.buy, "replacement_usd")]] : []),
    [t("Buy: host"), money(a.buy, "host_usd")], [t("Buy: network"), money(a.buy, "network_usd")],
    [t("Buy: electricity"), money(a.buy, "energy_usd")],
    [t("Buy: site ({site}): colo, support, staff", { site: siteName(a.buy.site) }), money(a.buy, "site_usd")],
    [t("Buy: resale"), `−${money(a.buy, "resale_usd")}`],
    [t("Buy: total"), money(a.buy, "total_usd")],
    [t("Buy: in today's money (discount rate {rate})", { rate: a.money.discount_rate }), money(a.buy, "present_usd")],
    ...a.rent.slice(0, 3).map((r) => [rent(r), t("{total} (today {present})", {
      total: money(r, "total_usd"), present: money(r, "present_usd") })]),
    ...(a.own ? a.own.paths.map((p) => [t("You own a {gpu}: {path}", { gpu: a.own.gpu, path: p.name }),
      p.present_usd === null ? t("cannot") : money(p, "present_usd")]) : []),
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

// Why buying never pays off, as the answer gives it (never_because): its case and figures.
function neverBecause(why) {
  const figures = { rent: money(why, "rent_usd_per_hour", 2), running: money(why, "running_usd_per_hour", 2),
    margin: money(why, "margin_usd_per_hour", 2), rate: pct(why.discount_rate, 1) };
  if (why.reason === "running") {
    return t("Buying never pays off: the rental costs {rent} per hour of work, no more than owning's power and site ({running}).", figures);
  }
  if (why.reason === "discounting") {
    return t("Buying never pays off: the rental costs {rent} per hour of work, only {margin} more than owning's power and site ({running}); at a discount rate of {rate} a year, renting for ever is worth less today than buying.", figures);
  }
  return t("Buying never pays off within the longest work a question spans.");
}

// The assumptions' fields left empty show the value the answer used, as their placeholder:
// an empty field means "the default", and this says which (in the currency asked).
const DEFAULT_SHOWN = ["electricity", "pue", "load", "host_cost", "host_watts", "utilization",
  "resale", "depreciation", "spot_overhead", "restart_hours", "discount_rate", "selling_fee",
  "colo_usd_per_kw_month", "support_share", "staff_usd_per_node_year", "network_usd", "memory",
  "price", "watts", "max_instances", "lifetime_years"];
// Money the form states in the currency asked; the answer echoes them in dollars.
const MONEY_DEFAULTS = new Set(["electricity", "price", "host_cost", "colo_usd_per_kw_month",
  "staff_usd_per_node_year", "network_usd"]);

function showDefaults(a) {
  const form = $("#calc-form");
  const used = a.assumptions;
  const perUsd = a.fx && a.fx.per_usd ? a.fx.per_usd : 1;
  for (const name of DEFAULT_SHOWN) {
    const field = form.elements.namedItem(name);
    if (!field || field.value !== "" || typeof used[name] !== "number") continue;
    const value = MONEY_DEFAULTS.has(name) ? used[name] * perUsd : used[name];
    field.placeholder = numberFormat({ maximumSignificantDigits: 4, useGrouping: false }).format(value);
  }
}

// The rate an answer in another currency was worked at, and its age when it is old.
function fxNote(fx) {
  if (!fx || fx.currency === "USD") return "";
  const rate = t("1 USD = {rate} {currency} (ECB, {day}).", {
    rate: num(fx.per_usd, 4), currency: fx.currency, day: day(fx.as_of) });
  const old = fx.stale ? t("The rate is {days} days old.", { days: num(fx.age_days) }) : "";
  return sentences([rate, old]);
}

// Sentences one after another: a space between them in English, none in Chinese.
function sentences(list) {
  return list.filter(Boolean).join(LANG === "en" ? " " : "");
}

// What the answer kept out, so nothing is hidden: the platform gate's best offer, the
// memory gate's count, the measured alternative to an estimated speed, Colab's sessions.
function renderGates(a) {
  const leftOut = $("#left-out");
  leftOut.hidden = !a.left_out;
  if (a.left_out) {
    const best = a.left_out.best;
    leftOut.textContent = t("Left out: {offers} offers on {platforms} (your code would need porting). Best of them: {provider} {product} ({pricing}) at {total}, speed {method}. Choose \"all platforms\" to compare them.", {
      offers: num(a.left_out.offers), platforms: a.left_out.platforms.join(", "), provider: best.provider,
      product: best.product, pricing: tierName(best.pricing), total: money(best, "total_usd"), method: methodName(best.throughput.method) });
  }
  const gate = a.memory_gate;
  const need = [
    gate.per_accelerator_gb !== null ? t("{gb} GB per accelerator", { gb: measure(gate.per_accelerator_gb) }) : null,
    gate.total_gb !== null ? t("{gb} GB in all", { gb: measure(gate.total_gb) }) : null,
  ].filter(Boolean).join(t(" and "));
  const notes = [t("Memory gate ({need}) removed {removed} offers.", { need, removed: num(gate.removed) })];
  if (a.cheapest_measured) {
    const m = a.cheapest_measured;
    notes.push(t("The cheapest rental's speed is estimated; cheapest with a measured speed: {provider} {product} at {total}.", {
      provider: m.provider, product: m.product, total: money(m, "total_usd") }));
  }
  if (a.same_card) {
    const c = a.same_card.cheapest;
    notes.push(t("The same card for rent: {count} × {gpu} on {provider} ({market}, {region}) at {rate}/h does the work for {total}, cheapest of {offers} offers.", {
      count: c.count, gpu: a.gpu, provider: c.provider, market: marketName(c.market), region: c.region,
      rate: money(c, "usd_per_hour"), total: money(c, "total_usd"), offers: num(a.same_card.offers) }));
  }
  if (a.rent[0].sessions) notes.push(`${a.rent[0].provider}: ${a.rent[0].sessions.note}.`);
  notes.push(t("Host: {host}; resale: {share} of the price at once, {loss} less each year.", {
    host: hostName(a.buy.host), share: pct(a.assumptions.resale), loss: pct(a.assumptions.depreciation, 1) }));
  if (a.tariff) notes.push(t("Electricity: {note}.", { note: a.tariff.note }));
  $("#gates").textContent = sentences(notes);
}

// How each input of the sensitivity reads in another language; in English the answer's own
// sentences are shown (service/engine/sensitivity.py writes them).
const PHRASES = {
  utilization: [() => t("the cards train"), (v) => t("{share} of the time", { share: pct(v) })],
  electricity: [() => t("power costs"), (v) => t("{value} USD/kWh", { value: num(v, 3) })],
  price: [() => t("a card costs"), (v) => t("{value} USD", { value: num(v) })],
  rent_factor: [() => t("rentals cost"), (v) => t("{value} × today's prices", { value: num(v, 2) })],
  hours: [() => t("the work is"), (v) => t("{value} h on one card", { value: num(v) })],
  lifetime_years: [() => t("the cards last"), (v) => t("{value} years", { value: num(v, v % 1 ? 1 : 0) })],
  resale: [() => t("the cards resell for"), (v) => t("{share} of their price", { share: pct(v) })],
  spot_overhead: [() => t("interruptions cost"), (v) => t("{share} more work on spot offers", { share: pct(v, 1) })],
  pue: [() => t("the PUE is"), (v) => num(v, 2)],
};

function sensitivitySentence(p, english) {
  if (LANG === "en" || !PHRASES[p.parameter]) return english;
  const [subject, show] = PHRASES[p.parameter];
  const now = show(p.value);
  if (p.flip !== null) {
    const values = { subject: subject(), flip: show(p.flip), now };
    return p.buy_wins === "above"
      ? t("Buying wins if {subject} more than {flip} (now {now}).", values)
      : t("Buying wins if {subject} less than {flip} (now {now}).", values);
  }
  const values = { subject: subject(), low: show(p.bounds[0]), high: show(p.bounds[1]), now };
  return p.buy_wins === "always"
    ? t("Buying wins whatever {subject}, from {low} to {high} (now {now}).", values)
    : t("Renting wins whatever {subject}, from {low} to {high} (now {now}).", values);
}

// What would have to be true: the sentences, and a tornado of what buying saves (negative:
// what renting saves) as each input moves one stated step down and up.
function renderWhatIf(a) {
  const box = $("#what-if");
  box.hidden = !a.sensitivity;
  if (!a.sensitivity) return;
  const rows = a.sensitivity.parameters;
  $("#sentences").replaceChildren(
    ...a.sensitivity.sentences.map((text, i) => {
      const li = document.createElement("li");
      li.textContent = rows[i] ? sensitivitySentence(rows[i], text) : text;
      return li;
    }),
  );
  const signed = (swing) => {
    const saves = moneyValue(swing, "savings_usd");
    return swing.verdict === "buy" ? saves : -saves;
  };
  const now = a.verdict === "buy" ? moneyValue(a, "savings_usd") : -moneyValue(a, "savings_usd");
  const label = (p) => `${p.parameter} (${p.step})`;
  drawChart("tornado", "#tornado-chart", {
    type: "bar",
    data: {
      labels: rows.map(label),
      datasets: [
        {
          label: t("buying saves, {currency} (input one step down / up)", { currency: currency() }),
          data: rows.map((p) => [signed(p.low), signed(p.high)]),
          backgroundColor: rows.map((p) => (p.flip === null ? "#b0b7c3" : COLORS[0])),
        },
        {
          label: t("today"), type: "scatter", data: rows.map((p) => ({ x: now, y: label(p) })),
          borderColor: "#000", backgroundColor: "#f5a623", pointRadius: 4,
        },
      ],
    },
    options: {
      indexAxis: "y", animation: false, maintainAspectRatio: false,
      scales: { x: { title: { display: true, text: t("buying saves, {currency} (negative: renting saves)", { currency: currency() }) } } },
    },
  });
  fillTable("#tornado-table", [t("Input"), t("Step"), t("Buying saves, one step down"), t("Buying saves, one step up")],
    rows.map((p) => [p.parameter, p.step, amount(signed(p.low), currency(), 0), amount(signed(p.high), currency(), 0)]));
  const r = a.ranges;
  $("#ranges").textContent = t("Rent side: {offers} offers of {accelerator} cost {p10} / {p50} / {p90} (P10/P50/P90); speeds ±{spread} put the cheapest at {low}–{high}; {note}.", {
    offers: num(r.offers.offers), accelerator: r.offers.accelerator, p10: money(r.offers, "p10_usd", 0),
    p50: money(r.offers, "p50_usd", 0), p90: money(r.offers, "p90_usd", 0), spread: pct(r.speed.spread),
    low: money(r.speed, "low_usd", 0), high: money(r.speed, "high_usd", 0),
    note: LANG === "en" ? r.note // the answer's own words name the ranges
      : r.close ? t("close: buying ({buy}) falls within a range", { buy: money(r, "buy_usd", 0) })
        : t("clear: buying ({buy}) is outside every range", { buy: money(r, "buy_usd", 0) }) });
}

// Cost against calendar days, as the answer carries it (`curves`): the engine samples both
// sides' present costs on the bought cards' calendar, so no cost is computed here and the
// break-even, one of the samples, lies on both lines. The deadline is a vertical line.
function drawCostChart(a) {
  const curves = a.curves;
  const breakeven = curves.breakeven_hours;
  const crossing = a.breakeven ? a.breakeven.crossing_hours : null;
  const deadlineDays = a.deadline.days;
  const at = (hours) => curves.hours.indexOf(hours);
  const buyCosts = moneyValue(curves, "buy_usd");
  const datasets = [{
    label: t("Buy {gpus} × {gpu}", { gpus: a.buy.gpus, gpu: a.gpu }),
    data: curves.days.map((x, i) => ({ x, y: buyCosts[i] })),
    borderColor: COLORS[0], backgroundColor: COLORS[0], pointRadius: 0,
  }];
  const lines = [{ label: datasets[0].label, costs: buyCosts }];
  curves.rent.forEach((r, i) => {
    const costs = moneyValue(r, "curve_usd");
    const label = t("Rent {name} ({pricing})", { name: offerName({ ...a.rent[i], name: r.name }), pricing: tierName(a.rent[i].pricing) });
    lines.push({ label, costs });
    datasets.push({
      label, data: curves.days.map((x, k) => ({ x, y: costs[k] })),
      borderColor: COLORS[i + 1], backgroundColor: COLORS[i + 1], pointRadius: 0, borderDash: [6, 4],
    });
  });
  if (deadlineDays !== null) {
    const top = Math.max(...datasets.flatMap((d) => d.data.map((p) => p.y)), 1);
    datasets.push({
      label: t("Deadline: {days} days", { days: num(deadlineDays) }),
      data: [{ x: deadlineDays, y: 0 }, { x: deadlineDays, y: top }],
      borderColor: "#555", backgroundColor: "#555", pointRadius: 0, borderWidth: 1,
    });
  }
  const marker = $("#breakeven-marker");
  if (breakeven !== null) {
    datasets.push({
      label: t("Break-even"), type: "scatter", data: [{ x: curves.days[at(breakeven)], y: buyCosts[at(breakeven)] }],
      borderColor: "#000", backgroundColor: "#f5a623", pointRadius: 7, pointStyle: "rectRot",
    });
    marker.dataset.hours = String(breakeven);
    marker.textContent = t("Break-even marked at {hours} h of work (day {day} at the bought cards' pace).", {
      hours: num(breakeven), day: num(curves.days[at(breakeven)]) });
  } else if (crossing !== null) {
    marker.dataset.hours = "";
    marker.textContent = t("The costs cross at {hours} h of work (day {day}), past the cards' {years}-year life: renting stays cheaper for as long as they last.", {
      hours: measure(crossing), day: num(a.breakeven.days === null ? crossing * a.buy.wall_clock_hours / a.hours / 24 : a.breakeven.days), years: num(a.breakeven.life_years, a.breakeven.life_years % 1 ? 1 : 0) });
  } else {
    marker.dataset.hours = "";
    marker.textContent = t("No break-even point: renting stays cheaper.");
  }
  // the chart's lines as a table: each side's cost at the work asked, and where they cross
  const marks = [a.hours, ...(breakeven !== null ? [breakeven] : [])];
  fillTable("#calc-chart-table", [t("Line"), ...marks.map((h) => t("At {hours} h of work", { hours: measure(h) }))],
    lines.map((line) => [line.label, ...marks.map((h) => amount(line.costs[at(h)], currency(), 0))]));
  drawChart("calc", "#calc-chart", {
    type: "line",
    data: { datasets },
    options: {
      animation: false, maintainAspectRatio: false, parsing: false,
      scales: {
        x: { type: "linear", title: { display: true, text: t("calendar days") } },
        y: { title: { display: true, text: t("cumulative cost, {currency}", { currency: currency() }) } },
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
  const params = new URLSearchParams({ workload: values.r_workload, gpu: values.r_gpu || "rtx3090", currency: currency() });
  for (const [field, param] of [["r_memory", "memory"], ["r_budget", "budget"], ["r_hours", "hours"], ["r_market", "market"], ["r_pricing", "pricing"], ["r_platforms", "platforms"]]) {
    if (values[field]) params.set(param, values[field]);
  }
  const body = await getJSON(`rank?${params.toString()}`);
  const perDollar = body.ranked_by === "reference_hours_per_usd";
  const cards = [...body.cards, ...body.too_small];
  const metric = (c) => moneyValue(c, perDollar ? "reference_hours_per_usd" : "throughput_per_1000_usd");
  const color = (c) => (!c.fits ? "#b0b7c3" : !c.within_budget ? "#9a6700" : COLORS[0]);
  const code = currency();
  $("#rank-status").classList.remove("error");
  $("#rank-status").textContent = perDollar
    ? t("Hours of {gpu} work per {currency} of ownership over {hours} h ({workload}); grey: too little memory, amber: over budget.", {
      gpu: body.gpu, currency: code, hours: num(body.hours), workload: workloadName(body.workload) })
    : t("Relative {workload} throughput per 1,000 {currency} of purchase price; grey: too little memory, amber: over budget.", {
      workload: workloadName(body.workload), currency: code });
  drawChart("rank", "#rank-chart", {
    type: "bar",
    data: {
      labels: cards.map((c) => `${c.id} · ${c.platform}`),
      datasets: [{ label: perDollar ? t("hours of work per {currency}", { currency: code }) : t("throughput per 1,000 {currency}", { currency: code }),
        data: cards.map(metric), backgroundColor: cards.map(color) }],
    },
    options: { animation: false, maintainAspectRatio: false, indexAxis: "y",
      scales: { y: { ticks: { autoSkip: false, font: { size: 10 } } } },
      plugins: { legend: { display: false } } },
  });
  fillTable("#rank-cards", [t("Card"), t("Platform"), "GB", t("Price"), perDollar ? t("hours of work per {currency}", { currency: code }) : t("throughput per 1,000 {currency}", { currency: code }), t("Note")],
    cards.map((c) => [c.id, c.platform, measure(c.memory_gb), money(c, "purchase_usd", 0), num(metric(c) ?? 0, 3),
      [!c.fits ? t("too little memory") : "", !c.within_budget ? t("over budget") : ""].filter(Boolean).join("; ")]));
  const header = [t("Provider"), t("Product"), t("Accelerator"), t("Tier"),
    t("{currency} per {gpu} hour", { currency: code, gpu: body.gpu }), t("Price as of")];
  const rows = body.rent.map((r) => [r.provider, r.product, r.accelerator, tierName(r.tier),
    money(r, "usd_per_reference_hour", 4), priceDay(r.price_as_of)]);
  fillTable("#rank-rent", header, rows);
}

// The reader's currency: every amount shown, and every amount the forms state, is in it.
function setCurrency(code) {
  const select = $("#currency");
  if ([...select.options].some((o) => o.value === code)) select.value = code;
  for (const span of document.querySelectorAll("[data-currency]")) span.textContent = select.value;
  setQuery({ currency: select.value === select.dataset.default ? "" : select.value });
}

// -- wiring -----------------------------------------------------------------------------

function init() {
  for (const link of document.querySelectorAll("header nav a")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      showView(link.dataset.view);
    });
  }
  $("#prices-form").addEventListener("change", () => {
    state.page = 0;
    loadPrices().catch((e) => showError("prices", e));
  });
  $("#prices-prev").addEventListener("click", () => turnPage(-1));
  $("#prices-next").addEventListener("click", () => turnPage(1));
  $("#prices-form").addEventListener("submit", (event) => event.preventDefault());
  columnHead("#prices-table", PRICE_COLUMNS, true);
  columnHead("#history-changes", CHANGE_COLUMNS, false);
  for (const button of document.querySelectorAll("#prices-table th button")) {
    button.addEventListener("click", () => sortBy(button.dataset.sort));
  }
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
  $("#currency").addEventListener("change", (event) => {
    setCurrency(event.target.value);
    showView(query().get("view") || "prices");
  });
  setCurrency(query().get("currency") || $("#currency").dataset.default);
  showView(query().get("view") || "prices");
}

document.addEventListener("DOMContentLoaded", init);
