// Staff pages: a block with data-poll-url is refreshed from its JSON ({done, html}) until done.
(function () {
  "use strict";
  function poll(block) {
    var url = block.getAttribute("data-poll-url");
    var every = parseInt(block.getAttribute("data-poll-ms") || "1000", 10);
    function tick() {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.json();
        })
        .then(function (data) {
          block.innerHTML = data.html;
          if (data.done) {
            block.setAttribute("data-done", "true");
          } else {
            window.setTimeout(tick, every);
          }
        })
        .catch(function () { window.setTimeout(tick, every * 3); });
    }
    if (block.getAttribute("data-done") !== "true") { window.setTimeout(tick, every); }
  }
  document.querySelectorAll("[data-poll-url]").forEach(poll);
  // Buttons that ask before acting: <button data-confirm="...">.
  document.querySelectorAll("[data-confirm]").forEach(function (button) {
    button.addEventListener("click", function (event) {
      if (!window.confirm(button.getAttribute("data-confirm"))) { event.preventDefault(); }
    });
  });
})();
