// tally desk: the count live over server-sent events (the stream stays open: a closed
// day's count is sent again when the game file changes), and the copy buttons.
// The desk's own script; nothing is loaded from elsewhere.
"use strict";
(function () {
  var live = document.getElementById("live");
  if (live && window.EventSource) {
    var source = new EventSource(live.getAttribute("data-events"));
    source.addEventListener("count", function (event) {
      // The fragment is the server's own render, names escaped there (Jinja autoescape).
      live.innerHTML = event.data;
      live.setAttribute("data-updated", event.lastEventId);
    });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.copy") : null;
    if (!button) return;
    var area = document.getElementById(button.getAttribute("data-copy"));
    if (!area) return;
    // The words are the page's, in its language (the button's data- attributes).
    var copied = button.getAttribute("data-copied") || "copied";
    var failed = button.getAttribute("data-failed") || "select and copy";
    var said = function (word) { button.textContent = word; };
    area.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(area.value).then(function () { said(copied); },
        function () { said(document.execCommand("copy") ? copied : failed); });
    } else {
      said(document.execCommand("copy") ? copied : failed);
    }
  });
})();
