/* Live judging progress: polls a submission's JSON (the API, with the session cookie) about once
   a second and renders queue position, each test as it finishes, then the verdict. Also
   typesets math with KaTeX when it is loaded. No dependencies. */
(function () {
  "use strict";

  /* The verdict words, from the page (sandbox/grader/contracts.py's VERDICT_TEXT, written by the
     verdict_words template tag): each verdict's label and the sentence a student is told. */
  var WORDS = (function () {
    var node = document.getElementById("verdict-words");
    try { return node ? JSON.parse(node.textContent) : {}; } catch (e) { return {}; }
  })();

  function label(v) { return (WORDS[v] && WORDS[v].label) || ""; }

  function says(v) {
    var text = (WORDS[v] && WORDS[v].says) || "";
    return text ? text.charAt(0).toUpperCase() + text.slice(1) : "";
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function verdictBadge(v, big) {
    return el("span", { "class": "verdict verdict-" + (v || "pending") + (big ? " verdict-big" : ""), title: label(v) }, v || "…");
  }

  function testsTable(tests) {
    var table = el("table", { "class": "tests" });
    var head = el("tr");
    head.appendChild(el("th", {}, "Test"));
    head.appendChild(el("th", {}, "Verdict"));
    head.appendChild(el("th", { "class": "time" }, "Time"));
    table.appendChild(el("thead")).appendChild(head);
    var body = table.appendChild(el("tbody"));
    tests.forEach(function (t) {
      var tr = el("tr", { "class": "test-row", "data-test": t.name, "data-verdict": t.verdict });
      var name = tr.appendChild(el("td", {}, t.name));
      if (!t.public) { name.appendChild(document.createTextNode(" ")); name.appendChild(el("span", { "class": "muted" }, "(hidden)")); }
      tr.appendChild(el("td")).appendChild(verdictBadge(t.verdict));
      tr.appendChild(el("td", { "class": "time" }, typeof t.time_ms === "number" ? t.time_ms.toFixed(1) + " ms" : ""));
      body.appendChild(tr);
      var lines = t.feedback || [];  /* computed by the server: sandbox/grader/feedback.py */
      if (lines.length) {
        var fb = el("tr", { "class": "feedback-row" });
        var td = fb.appendChild(el("td", { colspan: "3", "class": "msg" }));
        lines.forEach(function (line) {
          td.appendChild(line.cls === "traceback"  // a tab stop: a keyboard user scrolls it
            ? el("pre", { "class": line.cls, tabindex: "0" }, line.text)
            : el("div", line.cls ? { "class": line.cls } : {}, line.text));
        });
        body.appendChild(fb);
      }
    });
    return table;
  }

  function benchmark(b) {
    var box = el("div", { "class": "bench" });
    if (b.speedup === null || b.speedup === undefined || b.trust === "rejected") {
      // A rejected timing has no figure: the submission page says why and what to do next.
      box.appendChild(el("div", { "class": "speedup rejected" }, "No speedup: timing rejected"));
      box.appendChild(el("div", { "class": "muted" }, "baseline " + Number(b.baseline_ms).toFixed(3) + " ms · see the submission page for why, and resubmit"));
      return box;
    }
    var s = el("div", { "class": "speedup" + (b.speedup < 1 ? " slower" : "") }, "Speedup " + Number(b.speedup).toFixed(2) + "×");
    box.appendChild(s);
    box.appendChild(el("div", { "class": "muted" }, "yours " + Number(b.submission_ms).toFixed(3) + " ms · baseline " + Number(b.baseline_ms).toFixed(3) + " ms (medians)" + (b.trust && b.trust !== "verified" ? " · timing " + b.trust + ": see the submission page" : "")));
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
      status.appendChild(document.createTextNode(" " + says(data.verdict) + " "));
      status.setAttribute("data-verdict", data.verdict || "");
    }
    panel.appendChild(status);
    if (data.status === "done" && data.message) panel.appendChild(el("pre", { "class": "traceback", tabindex: "0" }, data.message));
    if (data.status === "done" && data.benchmark) panel.appendChild(benchmark(data.benchmark));
    if ((data.tests || []).length) panel.appendChild(testsTable(data.tests));
    if (detailUrl) {
      var p = el("p");
      var a = el("a", { href: detailUrl }, "Submission #" + data.id + " (" + data.mode + ")");
      p.appendChild(a);
      panel.appendChild(p);
    }
  }

  /* Polls until done; calls onDone(data). Network hiccups are retried, a lost session is said.
     The first polls come quickly (a Run's verdict often lands in a fraction of a second), then
     every second: 100 ms, growing by half each time, up to 1 s. */
  function follow(pollUrl, panel, detailUrl, onDone) {
    var failures = 0;
    var delay = 100;
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
          if (data.status === "done") { if (onDone) onDone(data); return; }
          setTimeout(tick, delay);
          delay = Math.min(1000, Math.round(delay * 1.5));
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
