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

  // The chat's own autoscroll is off (it would leave a finished answer scrolled to its end). Here: while
  // an answer is coming, follow it; once the finished answer (its marker) is in, show its start, since
  // the first line answers the question. The scroll repeats briefly while late layout settles.
  var marks = document.getElementsByClassName("gpa-answer-start"); // live: cheap to count on every mutation
  var answered = 0;
  function showStart() {
    var start = marks[marks.length - 1];
    if (start) {
      (start.closest(".message") || start.parentNode).scrollIntoView({ block: "start", inline: "nearest" });
    }
  }
  function follow() {
    var chat = document.getElementById("gpa-chatbot");
    var rows = chat ? chat.querySelectorAll(".message-row") : [];
    var last = rows[rows.length - 1];
    if (!last || last.querySelector(".gpa-answer-start")) {
      return;
    }
    var box = last.closest(".bubble-wrap");
    if (box) {
      box.scrollTop = box.scrollHeight;
    }
  }
  new MutationObserver(function () {
    if (marks.length === answered) {
      follow();
      return;
    }
    var fresh = marks.length > answered; // fewer: the chat was cleared
    answered = marks.length;
    if (fresh) {
      [0, 150, 400, 800].forEach(function (ms) {
        setTimeout(showStart, ms);
      });
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
