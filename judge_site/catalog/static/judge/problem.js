/* The problem page: the editor (CodeMirror when built, else the plain textarea), the draft kept
   on the server per user and problem (saved a moment after typing stops, and when the page is
   left; text not yet saved waits in localStorage, so a reload that outruns the save keeps it),
   Reset, Run/Submit without reloading, Ctrl/Cmd+Enter. */
(function () {
  "use strict";
  var EDITOR_MODES = {python: "python", cuda: "text/x-c++src", cpp: "text/x-c++src"};

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("judge-form");
    var textarea = document.getElementById("code");
    var panel = document.getElementById("results");
    if (!form || !textarea) return;
    var starter = JSON.parse(document.getElementById("starter-code").textContent);
    var draftUrl = form.dataset.draftUrl, pendingKey = form.dataset.draftKey;
    var draftStatus = document.getElementById("draft-status");
    var buttons = form.querySelectorAll("button[name=mode]");
    var editor = null;

    if (window.CodeMirror) {
      editor = window.CodeMirror.fromTextArea(textarea, {
        // a CUDA C++ or C++ problem (problem.toml's language = "cuda" or "cpp"): clike's C++ mode
        mode: EDITOR_MODES[form.dataset.language] || "python", lineNumbers: true, indentUnit: 4, tabSize: 4, indentWithTabs: false,
        matchBrackets: true, autoCloseBrackets: true, viewportMargin: Infinity,
        extraKeys: {
          Tab: function (cm) {
            if (cm.somethingSelected()) cm.indentSelection("add");
            else cm.replaceSelection("    ", "end");
          },
          "Shift-Tab": function (cm) { cm.indentSelection("subtract"); },
          "Ctrl-Enter": function () { send("run"); },
          "Cmd-Enter": function () { send("run"); }
        }
      });
      document.body.classList.add("has-codemirror");
    } else {
      textarea.addEventListener("keydown", function (e) {
        if (e.key === "Tab" && !e.ctrlKey && !e.metaKey) {
          e.preventDefault();
          var s = textarea.selectionStart;
          textarea.setRangeText("    ", s, textarea.selectionEnd, "end");
          draftLater();
        }
      });
    }

    function code() { return editor ? editor.getValue() : textarea.value; }
    function setCode(text) { if (editor) editor.setValue(text); else textarea.value = text; }
    function csrf() { return form.querySelector("[name=csrfmiddlewaretoken]").value; }

    // The draft: saved a moment after the last keystroke, at once before Run/Submit, and by a
    // beacon when the page is hidden or left; the status line says when a save failed.
    var savedCode = code(), timer = null;
    function showDraft(text) { if (draftStatus) draftStatus.textContent = text; }
    function storage() { try { return window.localStorage; } catch (e) { return null; } }
    function pending(text) {  // text not yet on the server (null: none)
      var st = storage();
      if (!st || !pendingKey) return;
      try { if (text === null) st.removeItem(pendingKey); else st.setItem(pendingKey, text); } catch (e) { /* quota */ }
    }
    function draftBody(extra) {
      var body = new FormData();
      body.append("csrfmiddlewaretoken", csrf());
      for (var k in extra) body.append(k, extra[k]);
      return body;
    }
    function saveDraft() {
      if (timer) { clearTimeout(timer); timer = null; }
      var text = code();
      if (!draftUrl || text === savedCode) return;
      fetch(draftUrl, { method: "POST", body: draftBody({ code: text }), credentials: "same-origin" })
        .then(function (r) {
          if (r.ok) { savedCode = text; if (code() === text) pending(null); showDraft("Draft saved"); return; }
          return r.json().then(function (d) { showDraft("Draft not saved: " + (d.error || r.status)); },
                               function () { showDraft("Draft not saved (HTTP " + r.status + "): reload the page or log in again"); });
        })
        .catch(function () { showDraft("Draft not saved: the site could not be reached"); });
    }
    function draftLater() {
      if (!draftUrl) return;
      pending(code());
      if (timer) clearTimeout(timer);
      showDraft("");
      timer = setTimeout(saveDraft, 800);
    }
    function saveOnLeave() {
      var text = code();
      if (!draftUrl || text === savedCode || !navigator.sendBeacon) return;
      if (navigator.sendBeacon(draftUrl, draftBody({ code: text }))) savedCode = text;
    }
    if (editor) editor.on("change", draftLater); else textarea.addEventListener("input", draftLater);
    var left = draftUrl && storage() && pendingKey ? storage().getItem(pendingKey) : null;
    if (left !== null) {
      if (left !== savedCode) { setCode(left); saveDraft(); } else pending(null);
    }
    document.addEventListener("visibilitychange", function () { if (document.hidden) saveOnLeave(); });
    window.addEventListener("pagehide", saveOnLeave);

    document.getElementById("reset-btn").addEventListener("click", function () {
      if (code() !== starter && !window.confirm("Replace your code with the starter code?")) return;
      if (timer) { clearTimeout(timer); timer = null; }
      setCode(starter);
      savedCode = starter;
      pending(null);
      if (draftUrl) {
        fetch(draftUrl, { method: "POST", body: draftBody({ reset: "1" }), credentials: "same-origin" })
          .then(function (r) { showDraft(r.ok ? "Draft discarded" : "Draft not discarded (HTTP " + r.status + ")"); })
          .catch(function () { showDraft("Draft not discarded: the site could not be reached"); });
      }
    });

    function busy(on) { buttons.forEach(function (b) { b.disabled = on; }); }

    function showError(message, loginLink) {
      panel.textContent = "";
      var box = document.createElement("div");
      box.className = "alert";
      box.setAttribute("role", "alert");
      box.textContent = message + " ";
      if (loginLink) {
        var a = document.createElement("a");
        a.href = form.dataset.loginUrl;
        a.textContent = "Log in";
        box.appendChild(a);
      }
      panel.appendChild(box);
    }

    function follow(pollUrl, detailUrl) {
      busy(true);
      window.JudgeProgress.follow(pollUrl, panel, detailUrl, function () { busy(false); });
    }

    function send(mode) {
      if (form.dataset.loggedIn !== "1") { showError("Log in to run or submit.", true); return; }
      if (buttons.length && buttons[0].disabled) return;
      saveDraft();
      var body = new FormData();
      body.append("code", code());
      body.append("mode", mode);
      busy(true);
      panel.textContent = mode === "run" ? "Sending to the judge (public tests)…" : "Sending to the judge (all tests + benchmark)…";
      fetch(form.action, {
        method: "POST", body: body, credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrf() }
      }).then(function (r) {
        if (r.status === 403) { busy(false); showError("Your session has expired or the page is stale: reload the page or log in again.", true); return null; }
        return r.json().catch(function () {
          // Not our JSON: Django refused the request itself (e.g. a body over its size cap).
          return { error: r.status === 400 || r.status === 413 ? "Your code is too large." : "Refused (HTTP " + r.status + ")." };
        }).then(function (data) { return { ok: r.ok, status: r.status, data: data }; });
      }).then(function (res) {
        if (!res) return;
        if (!res.ok) { busy(false); showError(res.data.error || ("Refused (HTTP " + res.status + ")"), res.status === 401); return; }
        follow(res.data.poll, res.data.url);
      }).catch(function () { busy(false); showError("The judge could not be reached; try again."); });
    }

    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var mode = (e.submitter && e.submitter.value) || "run";
      send(mode);
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send("run"); }
    });

    if (form.dataset.resume) follow(form.dataset.resume, form.dataset.resumeUrl);
  });
})();
