/* The scratchpad (submissions/_scratch.html): the code in the editor plus the lines typed here
   go to the API as a scratch run (POST /api/v1/submissions, mode "scratch"); the run is polled
   until done and what the script printed is shown as text. The lines are kept in localStorage
   per user and problem; a snippet replaces them only when asked. */
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("scratchpad");
    var script = document.getElementById("scratch-script");
    if (!box || !script) return;
    var run = document.getElementById("scratch-run");
    var status = document.getElementById("scratch-status");
    var output = document.getElementById("scratch-output");
    var picker = document.getElementById("scratch-snippet");
    var snippets = JSON.parse(document.getElementById("scratch-snippets").textContent);
    var wordsNode = document.getElementById("verdict-words");
    var words = wordsNode ? JSON.parse(wordsNode.textContent) : {};
    var storeKey = box.dataset.storeKey;

    function storage() { try { return window.localStorage; } catch (e) { return null; } }
    var st = storage();
    if (st && storeKey) {
      try { var kept = st.getItem(storeKey); if (kept) script.value = kept; } catch (e) { /* blocked */ }
    }
    function keep() {
      if (!st || !storeKey) return;
      try { st.setItem(storeKey, script.value); } catch (e) { /* quota */ }
    }
    script.addEventListener("input", keep);

    document.getElementById("scratch-use").addEventListener("click", function () {
      var text = snippets[picker.value];
      if (typeof text !== "string") return;
      script.value = text;
      keep();
      script.focus();
    });

    function code() {  // the editor's text (CodeMirror keeps its instance on its wrapper)
      var cm = document.querySelector("#judge-form .CodeMirror");
      if (cm && cm.CodeMirror) return cm.CodeMirror.getValue();
      var area = document.getElementById("code");
      return area ? area.value : "";
    }
    function csrf() {
      var input = document.querySelector("#judge-form [name=csrfmiddlewaretoken]");
      return input ? input.value : "";
    }
    function say(text, bad) {
      status.textContent = text;
      status.classList.toggle("bad", !!bad);
    }
    function show(text) {
      output.hidden = false;
      output.textContent = text;
    }
    function label(verdict) {
      var w = words[verdict];
      return w ? w.label + " (" + verdict + ")" : verdict;
    }

    function finished(data) {
      run.disabled = false;
      var tests = data.tests || [];
      var first = tests.length ? tests[0] : null;
      show(data.output || "(your script printed nothing)");
      if (!data.verdict) {
        var ms = first && typeof first.time_ms === "number" ? " in " + first.time_ms.toFixed(1) + " ms" : "";
        say("Your script ran to its end" + ms + (data.output_truncated ? "; its output was cut (see its last line)." : "."));
        return;
      }
      var why = (first && first.verdict !== "SK" && first.message) || data.message || "";
      say(label(data.verdict) + (why ? ": " + why : ""), true);
    }

    function poll(url, delay) {
      window.setTimeout(function () {
        fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
          .then(function (r) { return r.json().then(function (d) { return { ok: r.ok, data: d }; }); })
          .then(function (res) {
            if (!res.ok) { run.disabled = false; say(res.data.error || "The run could not be read; try again.", true); return; }
            var d = res.data;
            if (d.status === "done") { finished(d); return; }
            say(d.status === "queued"
              ? "Waiting for the judge" + (d.queue_position ? " (position " + d.queue_position + ")" : "") + "…"
              : "Running your script…");
            poll(url, Math.min(delay * 1.5, 2000));
          })
          .catch(function () { poll(url, 2000); });
      }, delay);
    }

    function send() {
      if (run.disabled) return;
      if (!script.value.trim()) { say("Write a few lines first: call your function and print what it returns.", true); script.focus(); return; }
      run.disabled = true;
      say("Sending your script…");
      fetch(box.dataset.api, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
        body: JSON.stringify({ problem: Number(box.dataset.problem), code: code(), mode: "scratch", script: script.value })
      }).then(function (r) {
        return r.json().catch(function () { return { error: "Refused (HTTP " + r.status + ")." }; })
          .then(function (d) { return { ok: r.ok, status: r.status, data: d }; });
      }).then(function (res) {
        if (!res.ok) {
          run.disabled = false;
          var text = res.status === 403 && !res.data.error ? "Your session has expired: reload the page." : (res.data.error || "Refused.");
          say(text, true);
          return;
        }
        poll(box.dataset.poll.replace(/0$/, String(res.data.id)), 300);
      }).catch(function () { run.disabled = false; say("The judge could not be reached; try again.", true); });
    }

    run.addEventListener("click", send);
    script.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        e.stopPropagation();  // the page's own Ctrl/Cmd+Enter runs the tests
        send();
      }
    });
  });
})();
