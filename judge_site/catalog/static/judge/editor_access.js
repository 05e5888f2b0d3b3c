/* The code editor for keyboard and screen-reader users.

   Input: CodeMirror's "contenteditable" model, not its default hidden textarea: screen readers
   read the code itself (CodeMirror's manual: "Support for IME and screen readers is better in
   the contenteditable model"), and the editor's scrolling area holds the focusable input, so a
   keyboard user scrolls it (axe's scrollable-region-focusable). A default, so it is set before
   any editor is made.

   Leaving it by keyboard. Tab indents inside an editor (problem.js), which would trap
   a keyboard user in it; Esc then Tab moves the focus on to the next control of the page and
   Esc then Shift+Tab back to the previous one (what CodeMirror's own accessibility notes
   suggest). Loaded after CodeMirror and before the scripts that make editors: an init hook
   gives it to every CodeMirror editor of the page, those made later included, and a listener
   to every plain textarea (the editor when CodeMirror is not built). The page says so in
   #editor-keys, which describes each editor's input for screen readers (the textarea's
   aria-describedby). */
(function () {
  "use strict";

  var HINT_ID = "editor-keys";
  var FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), " +
    "select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";

  // The next (or previous) control in the page's order that is outside ``editor`` and shown.
  function neighbour(editor, backwards) {
    var want = backwards ? Node.DOCUMENT_POSITION_PRECEDING : Node.DOCUMENT_POSITION_FOLLOWING;
    var found = Array.prototype.filter.call(document.querySelectorAll(FOCUSABLE), function (el) {
      return !editor.contains(el) && !el.contains(editor) &&
        (editor.compareDocumentPosition(el) & want) && el.getClientRects().length > 0;
    });
    return found.length ? found[backwards ? found.length - 1 : 0] : null;
  }

  function leave(editor, backwards) {
    var target = neighbour(editor, backwards);
    if (target) target.focus();
    else if (document.activeElement) document.activeElement.blur();
  }

  if (window.CodeMirror) {
    window.CodeMirror.defaults.inputStyle = "contenteditable";
    window.CodeMirror.defineInitHook(function (cm) {
      var armed = false;  // Esc was the last key: the next Tab leaves
      function out(backwards) {
        return function () {
          if (!armed) return window.CodeMirror.Pass;  // Tab indents, as before
          armed = false;
          leave(cm.getWrapperElement(), backwards);
        };
      }
      cm.addKeyMap({
        Esc: function () { armed = true; return window.CodeMirror.Pass; },
        Tab: out(false),
        "Shift-Tab": out(true)
      });
      cm.on("keydown", function (_, e) {
        if (e.key !== "Escape" && e.key !== "Tab" && e.key !== "Shift") armed = false;
      });
      cm.on("blur", function () { armed = false; });
      // The input CodeMirror types into: named and described as the textarea it replaces (the
      // hook runs before fromTextArea returns, with the editor already placed right after it),
      // else by the page's line on these keys.
      var source = cm.getWrapperElement().previousElementSibling;
      if (!source || source.tagName !== "TEXTAREA") source = null;
      var label = source && source.getAttribute("aria-label");
      cm.setOption("screenReaderLabel", label || cm.getOption("screenReaderLabel") || "Code editor");
      var described = (source && source.getAttribute("aria-describedby")) ||
        (document.getElementById(HINT_ID) ? HINT_ID : "");
      if (described) cm.getInputField().setAttribute("aria-describedby", described);
    });
  }

  // Plain textareas: the page's own Tab handler (indent) is skipped after Esc, so the browser
  // moves the focus as it does anywhere else.
  var armedArea = null;
  document.addEventListener("keydown", function (e) {
    var area = e.target;
    if (!area || area.tagName !== "TEXTAREA" || area.closest(".CodeMirror")) return;
    if (e.key === "Escape") { armedArea = area; return; }
    if (e.key === "Tab" && armedArea === area) {
      armedArea = null;
      e.stopImmediatePropagation();  // capturing on document: before the textarea's handler
      return;
    }
    if (e.key !== "Shift") armedArea = null;
  }, true);
})();
