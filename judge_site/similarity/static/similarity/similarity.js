// A similarity run's progress: poll its JSON every second, move the bar, reload the page when
// the run is over (the page then lists the pairs). No inline code (the site's CSP refuses it).
(function () {
  "use strict";
  var box = document.querySelector("#similarity-run[data-progress-url]");
  if (!box) return;
  var url = box.getAttribute("data-progress-url");
  var bar = document.getElementById("similarity-progress");
  var percent = document.getElementById("similarity-percent");
  var status = document.getElementById("similarity-status");
  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) {
        if (!p) { window.setTimeout(poll, 3000); return; }
        if (p.finished) { window.location.reload(); return; }
        if (bar) bar.value = p.percent;
        if (percent) percent.textContent = p.percent + "%";
        if (status) status.textContent = p.status === "queued" ? "Waiting for a worker…" : "Comparing…";
        window.setTimeout(poll, 1000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 500);
})();
