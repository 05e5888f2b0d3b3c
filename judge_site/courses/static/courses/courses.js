// Course pages: times in the viewer's time zone, the forms' time zone, sortable tables,
// confirmations. No inline code (the site's Content-Security-Policy refuses it).
(function () {
  "use strict";
  var zone = "UTC";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; } catch (e) { /* keep UTC */ }

  document.querySelectorAll(".tz-name").forEach(function (el) { el.textContent = zone; });
  document.querySelectorAll("input.tz-field").forEach(function (el) { el.value = zone; });

  var long = { weekday: "short", year: "numeric", month: "short", day: "numeric",
               hour: "2-digit", minute: "2-digit" };
  var short = { month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" };
  document.querySelectorAll("time.local[datetime]").forEach(function (el) {
    var when = new Date(el.getAttribute("datetime"));
    if (isNaN(when.getTime())) return;
    el.title = when.toISOString();
    el.textContent = when.toLocaleString(undefined, el.classList.contains("short") ? short : long);
  });

  // An exam's timer: the time left in the student's own window, then a reload (the page
  // then says the time is over; the server refuses a late Submit whatever this shows).
  document.querySelectorAll(".exam-timer[data-ends]").forEach(function (el) {
    var ends = new Date(el.getAttribute("data-ends")).getTime();
    if (isNaN(ends)) return;
    function tick() {
      var left = Math.max(0, Math.floor((ends - Date.now()) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      el.textContent = (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" +
        String(s).padStart(2, "0");
      if (left === 0) { clearInterval(timer); window.setTimeout(function () { window.location.reload(); }, 1500); }
    }
    var timer = setInterval(tick, 1000);
    tick();
  });

  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
    });
  });

  function cellValue(row, index, numeric) {
    var cell = row.children[index];
    var raw = cell ? (cell.getAttribute("data-value") || cell.textContent.trim()) : "";
    if (!numeric) return raw.toLowerCase();
    var n = parseFloat(raw);
    return isNaN(n) ? -Infinity : n;
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    table.querySelectorAll("thead th[data-sort]").forEach(function (th, index) {
      th.classList.add("sort-key");
      th.addEventListener("click", function () {
        var numeric = th.getAttribute("data-sort") === "num";
        var descending = th.getAttribute("aria-sort") !== "descending";
        table.querySelectorAll("thead th").forEach(function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
          var order = x < y ? -1 : x > y ? 1 : 0;
          return descending ? -order : order;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
