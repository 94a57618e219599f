// The trial table's script, inlined in the page: it reads the rows from the JSON element, filters
// and sorts them in memory, and puts in the document only the rows in view (plus a margin), so
// scrolling through tens of thousands of rows stays fast. Cells are set with textContent: a row's
// text can never become markup.

import { COLUMNS } from "./rows.js";

/** A column's index in a row (rows.ts), for the script. */
const at = (c: (typeof COLUMNS)[number]) => COLUMNS.indexOf(c);

/** Both tables' order: numbers as numbers, text as text, an empty value last whichever the direction `d`. */
const COMPARE = `function compare(x, y, d) {
    if (x === y) return 0;
    if (x === null || x === "") return 1;
    if (y === null || y === "") return -1;
    return (typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : 1) * d;
  }`;

export const TABLE_SCRIPT = `
(function () {
  "use strict";
  ${COMPARE}
  var ROW = 29, MARGIN = 20;
  var all = JSON.parse(document.getElementById("trial-data").textContent);
  var scroll = document.getElementById("trial-scroll");
  var body = document.querySelector("#trial-table tbody");
  var count = document.getElementById("trial-count");
  var inputs = { validity: ${at("validity")}, outcome: ${at("outcome")}, codes: ${at("codes")}, flags: ${at("flags")} };
  var VALIDITY = ${at("validity")}, EVIDENCE = ${at("evidence")}, HREF = ${COLUMNS.length};
  var TEXT = [${at("path")}, ${at("experiment")}, ${at("trial")}, ${at("sample")}, ${at("task")}]; // what the text filter searches
  var ALWAYS = [${at("path")}, ${at("experiment")}, ${at("trial")}, ${at("validity")}]; // shown even when every row leaves one empty
  // The columns some row fills (no empty column for a kind without that field), each as wide as its
  // longest cell in the table's monospace font (its text never cut), in the row's order.
  var cols = [], width = [];
  document.querySelectorAll("#trial-table [data-col], .filters [data-col]").forEach(function (el) {
    var c = Number(el.getAttribute("data-col"));
    var used = ALWAYS.indexOf(c) >= 0 || all.some(function (r) { return r[c] !== null && r[c] !== ""; });
    if (!used) { el.remove(); return; }
    if (el.tagName === "COL") {
      var w = el.className.slice(2).length + 2; // the header's name and its sort arrow
      all.forEach(function (r) { w = Math.max(w, r[c] === null ? 0 : String(r[c]).length); });
      el.style.width = "calc(" + w + "ch + 1.25rem)";
      cols.push(c); width.push(w);
    }
  });
  document.getElementById("trial-table").style.width = "calc(" + width.reduce(function (a, b) { return a + b; }, 0) + "ch + " + 1.25 * cols.length + "rem)";
  var heads = document.querySelectorAll("#trial-table thead th");
  var shown = all, sortCol = -1, sortDir = 1, drawn = "";

  // A row's validity starts with its kind: valid, invalid, error, or why it is not counted (excluded: …, superseded…).
  function kind(v) { var k = /^(valid|invalid|error)\\b/.exec(v); return k === null ? "not counted" : k[1]; }
  function value(id) { var el = document.getElementById("f-" + id); return el === null ? "" : el.value.trim().toLowerCase(); } // a hidden column has no filter
  function apply() {
    var text = value("text"), want = {};
    for (var k in inputs) want[inputs[k]] = value(k);
    shown = all.filter(function (r) {
      for (var c in want) {
        var w = want[c];
        if (w === "") continue;
        var cell = String(r[c]).toLowerCase();
        if (Number(c) === VALIDITY ? kind(cell) !== w : cell.indexOf(w) < 0) return false;
      }
      return text === "" || TEXT.map(function (c) { return r[c]; }).join(" ").toLowerCase().indexOf(text) >= 0;
    });
    if (sortCol >= 0) order();
    count.textContent = shown.length + " of " + all.length + " rows match";
    count.setAttribute("data-matching", String(shown.length));
    drawn = "";
    scroll.scrollTop = 0;
    draw();
  }
  function order() {
    var c = sortCol, d = sortDir;
    shown = shown.slice().sort(function (a, b) { return compare(a[c], b[c], d); });
  }
  function spacer(h) {
    var tr = document.createElement("tr"), td = document.createElement("td");
    tr.className = "spacer"; td.colSpan = cols.length; td.style.height = h + "px"; tr.appendChild(td);
    return tr;
  }
  function draw() {
    var first = Math.max(0, Math.floor(scroll.scrollTop / ROW) - MARGIN);
    var last = Math.min(shown.length, Math.ceil((scroll.scrollTop + scroll.clientHeight) / ROW) + MARGIN);
    var key = first + ":" + last;
    if (key === drawn) return;
    drawn = key;
    var frag = document.createDocumentFragment();
    frag.appendChild(spacer(first * ROW));
    for (var i = first; i < last; i++) {
      var r = shown[i], tr = document.createElement("tr");
      tr.className = "row";
      cols.forEach(function (c) {
        var td = document.createElement("td");
        // The evidence cell links its file (r[HREF], a file: URL the page was written with; never fetched until clicked).
        if (c === EVIDENCE && typeof r[HREF] === "string" && r[HREF].indexOf("file:") === 0) {
          var a = document.createElement("a");
          a.href = r[HREF];
          a.textContent = String(r[c]);
          td.appendChild(a);
        } else td.textContent = r[c] === null ? "" : String(r[c]);
        if (c === VALIDITY) td.className = kind(r[c]) === "not counted" ? "skipped" : kind(r[c]);
        tr.appendChild(td);
      });
      frag.appendChild(tr);
    }
    frag.appendChild(spacer((shown.length - last) * ROW));
    body.replaceChildren(frag);
  }
  heads.forEach(function (th, i) {
    var c = cols[i];
    th.addEventListener("click", function () {
      sortDir = sortCol === c ? -sortDir : 1;
      sortCol = c;
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      order();
      drawn = "";
      draw();
    });
  });
  document.querySelectorAll(".filters input, .filters select").forEach(function (el) { el.addEventListener("input", apply); });
  scroll.addEventListener("scroll", function () { window.requestAnimationFrame(draw); });
  window.addEventListener("resize", function () { drawn = ""; draw(); });
  apply();
})();
`;

// The experiments table's sort: a click (or Enter) on a header orders the rows by that column's
// data-sort, numbers as numbers, an empty value last either way.
export const SURVEY_SCRIPT = `
(function () {
  "use strict";
  ${COMPARE}
  var table = document.getElementById("survey");
  if (table === null) return;
  var heads = table.querySelectorAll("thead th"), body = table.tBodies[0], col = -1, dir = 1;
  function key(tr, c) { var v = tr.cells[c].getAttribute("data-sort"); return v === "" || v === null ? null : isNaN(Number(v)) ? v : Number(v); }
  function sort(c) {
    dir = col === c ? -dir : 1;
    col = c;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) { return compare(key(a, c), key(b, c), dir); });
    rows.forEach(function (r) { body.appendChild(r); });
    heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
    heads[c].setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }
  heads.forEach(function (th, c) {
    th.addEventListener("click", function () { sort(c); });
    th.addEventListener("keydown", function (ev) { if (ev.key === "Enter") sort(c); });
  });
})();
`;
