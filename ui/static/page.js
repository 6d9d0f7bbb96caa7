// gpu-advisor chat page: runs in <head>, before Gradio renders, so the embed layout holds from the first paint.
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var embed = params.get("embed") === "1" || params.get("embed") === "true";
  if (embed) {
    document.documentElement.classList.add("gpa-embed");
    // Escape anywhere in the chat closes the widget's panel: the widget script listens for this message.
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && window.parent !== window) {
        window.parent.postMessage({ type: "gpu-advisor:close" }, "*");
      }
    });
  }

  // Sortable options tables: one delegated handler, since the table arrives as HTML after load.
  document.addEventListener("click", function (event) {
    var th = event.target && event.target.closest && event.target.closest("table.gpa-sortable th[data-sort]");
    if (!th) {
      return;
    }
    var table = th.closest("table");
    var column = Array.prototype.indexOf.call(th.parentNode.children, th);
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(th.parentNode.children, function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var numeric = th.getAttribute("data-sort") === "num";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    function key(row) {
      var cell = row.cells[column];
      if (!numeric) {
        return cell.textContent.trim();
      }
      var value = cell.getAttribute("data-value");
      return value === null ? Infinity : parseFloat(value); // unknown values last
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      var order = numeric ? (x === y ? 0 : x < y ? -1 : 1) : String(x).localeCompare(String(y));
      if (numeric && (x === Infinity || y === Infinity)) {
        return x === y ? 0 : x === Infinity ? 1 : -1;
      }
      return ascending ? order : -order;
    });
    rows.forEach(function (row) {
      body.appendChild(row);
    });
  });

  // After an answer finishes, show its start (the first line answers the question), not its end.
  var answered = 0;
  var timer = null;
  function settle() {
    var chat = document.getElementById("gpa-chatbot");
    var bots = chat ? chat.querySelectorAll(".gpa-answer-start") : [];
    if (bots.length <= answered) {
      answered = bots.length; // a cleared chat starts counting again
      return;
    }
    answered = bots.length;
    var start = bots[bots.length - 1];
    (start.closest(".message") || start.parentNode).scrollIntoView({ block: "start", inline: "nearest" });
  }
  new MutationObserver(function () {
    clearTimeout(timer);
    timer = setTimeout(settle, 350);
  }).observe(document.documentElement, { childList: true, subtree: true, characterData: true });
})();
