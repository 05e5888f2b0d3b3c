/* Live judging progress: polls a submission's JSON (the API, with the session cookie) about once
   a second and renders queue position, each test as it finishes, then the verdict. Also
   typesets math with KaTeX when it is loaded. No dependencies. */
(function () {
  "use strict";

  var WORDS = {
    AC: "Accepted", WA: "Wrong answer", TLE: "Time limit exceeded", MLE: "Memory limit exceeded",
    OLE: "Output limit exceeded", RE: "Runtime error", CE: "Compilation error",
    IE: "Internal error (ours, not yours)", SK: "Skipped"
  };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function num(v) {
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+$/, "");
    return v === undefined || v === null ? "" : (typeof v === "object" ? JSON.stringify(v) : String(v));
  }

  function verdictBadge(v, big) {
    return el("span", { "class": "verdict verdict-" + (v || "pending") + (big ? " verdict-big" : ""), title: WORDS[v] || "" }, v || "…");
  }

  /* The feedback cell of one test: message, worst element, counts, trimmed traceback. */
  function feedback(test) {
    var td = el("td", { "class": "msg" });
    var d = test.details || {};
    if (test.message) td.appendChild(el("div", {}, test.message));
    if (d.index !== undefined && d.expected !== undefined) {
      var line = "worst element at index [" + num(d.index) + "]: expected " + num(d.expected) + ", got " + num(d.got);
      if (d.abs_error !== undefined && d.abs_error !== null) line += " (abs error " + num(d.abs_error) + (d.rel_error !== undefined && d.rel_error !== null ? ", rel error " + num(d.rel_error) : "") + ")";
      td.appendChild(el("div", { "class": "worst" }, line));
    }
    if (d.mismatched !== undefined && d.total !== undefined) td.appendChild(el("div", {}, d.mismatched + " of " + d.total + " elements differ"));
    if (d.traceback) td.appendChild(el("pre", { "class": "traceback" }, d.traceback));
    return td;
  }

  function testsTable(tests) {
    var table = el("table", { "class": "tests" });
    var head = el("tr");
    ["Test", "Verdict", "Time", "Feedback"].forEach(function (h) { head.appendChild(el("th", {}, h)); });
    table.appendChild(el("thead")).appendChild(head);
    var body = table.appendChild(el("tbody"));
    tests.forEach(function (t) {
      var tr = el("tr", { "class": "test-row", "data-test": t.name, "data-verdict": t.verdict });
      tr.appendChild(el("td", {}, t.name + (t.public ? "" : " (hidden)")));
      tr.appendChild(el("td")).appendChild(verdictBadge(t.verdict));
      tr.appendChild(el("td", {}, typeof t.time_ms === "number" ? t.time_ms.toFixed(1) + " ms" : ""));
      tr.appendChild(feedback(t));
      body.appendChild(tr);
    });
    return table;
  }

  function benchmark(b) {
    var box = el("div", { "class": "bench" });
    var s = el("div", { "class": "speedup" + (b.speedup < 1 ? " slower" : "") }, "Speedup " + Number(b.speedup).toFixed(2) + "×");
    box.appendChild(s);
    box.appendChild(el("div", { "class": "muted" }, "yours " + Number(b.submission_ms).toFixed(3) + " ms · baseline " + Number(b.baseline_ms).toFixed(3) + " ms (medians)"));
    return box;
  }

  function render(panel, data, detailUrl) {
    panel.textContent = "";
    var status = el("div", { "class": "status-line", "data-status": data.status });
    if (data.status === "queued") {
      status.textContent = "Queued" + (data.queue_position ? ", position " + data.queue_position + " in the queue" : "") + "…";
    } else if (data.status === "running") {
      status.textContent = "Running… " + (data.tests || []).length + " test(s) done";
    } else {
      status.appendChild(verdictBadge(data.verdict, true));
      status.appendChild(document.createTextNode(" " + (WORDS[data.verdict] || "") + " "));
      status.setAttribute("data-verdict", data.verdict || "");
    }
    panel.appendChild(status);
    if (data.status === "done" && data.message) panel.appendChild(el("pre", { "class": "traceback" }, data.message));
    if (data.status === "done" && data.benchmark) panel.appendChild(benchmark(data.benchmark));
    if ((data.tests || []).length) panel.appendChild(testsTable(data.tests));
    if (detailUrl) {
      var p = el("p");
      var a = el("a", { href: detailUrl }, "Submission #" + data.id + " (" + data.mode + ")");
      p.appendChild(a);
      panel.appendChild(p);
    }
  }

  /* Polls until done; calls onDone(data). Network hiccups are retried, a lost session is said. */
  function follow(pollUrl, panel, detailUrl, onDone) {
    var failures = 0;
    function tick() {
      fetch(pollUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) {
          if (r.status === 401 || r.status === 403) throw new Error("session");
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.json();
        })
        .then(function (data) {
          failures = 0;
          render(panel, data, detailUrl);
          if (data.status === "done") { if (onDone) onDone(data); } else { setTimeout(tick, 1000); }
        })
        .catch(function (err) {
          if (err.message === "session") {
            panel.appendChild(el("div", { "class": "alert" }, "Your session has expired: log in again to see the result."));
            if (onDone) onDone(null);
            return;
          }
          failures += 1;
          setTimeout(tick, Math.min(10000, 1000 * failures));
        });
    }
    tick();
  }

  function typesetMath(root) {
    if (!window.katex) return;
    (root || document).querySelectorAll(".math").forEach(function (node) {
      if (node.classList.contains("katex-done")) return;
      try {
        window.katex.render(node.textContent, node, { displayMode: node.classList.contains("display"), throwOnError: false });
        node.classList.add("katex-done");
      } catch (e) { /* leave the TeX source visible */ }
    });
  }

  window.JudgeProgress = { follow: follow, render: render, typesetMath: typesetMath };
  document.addEventListener("DOMContentLoaded", function () {
    typesetMath(document);
    var live = document.getElementById("live-progress");
    if (live && live.dataset.poll) {
      follow(live.dataset.poll, live, null, function (data) { if (data) window.location.reload(); });
    }
  });
})();
