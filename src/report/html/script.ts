// The trial table's script, inlined in the page: it reads the rows from the JSON element, filters
// and sorts them in memory, and puts in the document only the rows in view (plus a margin), so
// scrolling through tens of thousands of rows stays fast. Cells are set with textContent: a row's
// text can never become markup.

export const TABLE_SCRIPT = `
(function () {
  "use strict";
  var ROW = 29, MARGIN = 20;
  var all = JSON.parse(document.getElementById("trial-data").textContent);
  var scroll = document.getElementById("trial-scroll");
  var body = document.querySelector("#trial-table tbody");
  var heads = document.querySelectorAll("#trial-table thead th");
  var count = document.getElementById("trial-count");
  var inputs = { validity: 4, outcome: 5, codes: 6, flags: 7 };
  var shown = all, sortCol = -1, sortDir = 1, drawn = "";

  // A row's validity starts with its kind: valid, invalid, error, or why it is not counted (excluded: …, superseded…).
  function kind(v) { var k = /^(valid|invalid|error)\\b/.exec(v); return k === null ? "not counted" : k[1]; }
  function value(id) { return document.getElementById("f-" + id).value.trim().toLowerCase(); }
  function apply() {
    var text = value("text"), want = {};
    for (var k in inputs) want[inputs[k]] = value(k);
    shown = all.filter(function (r) {
      for (var c in want) {
        var w = want[c];
        if (w === "") continue;
        var cell = String(r[c]).toLowerCase();
        if (c === "4" ? kind(cell) !== w : cell.indexOf(w) < 0) return false;
      }
      return text === "" || (r[0] + " " + r[1] + " " + r[2]).toLowerCase().indexOf(text) >= 0;
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
    shown = shown.slice().sort(function (a, b) {
      var x = a[c], y = b[c];
      if (x === y) return 0;
      if (x === null || x === "") return 1;
      if (y === null || y === "") return -1;
      return (typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : 1) * d;
    });
  }
  function spacer(h) {
    var tr = document.createElement("tr"), td = document.createElement("td");
    tr.className = "spacer"; td.colSpan = 8; td.style.height = h + "px"; tr.appendChild(td);
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
      for (var c = 0; c < 8; c++) {
        var td = document.createElement("td");
        td.textContent = r[c] === null ? "" : String(r[c]);
        if (c === 0 || c === 4) td.title = String(r[c]); // cut to the column: the whole on hover
        if (c === 4) td.className = kind(r[4]) === "not counted" ? "skipped" : kind(r[4]);
        tr.appendChild(td);
      }
      frag.appendChild(tr);
    }
    frag.appendChild(spacer((shown.length - last) * ROW));
    body.replaceChildren(frag);
  }
  heads.forEach(function (th, c) {
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
