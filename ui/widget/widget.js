/*
 * gpu-advisor widget: a floating launcher that opens the chat in an iframe panel.
 *
 *   <script src="https://HOST/widget.js" data-gpu-advisor-url="https://HOST" defer></script>
 *
 * Optional attributes: data-title (button and panel label), data-position ("right" | "left"),
 * data-open ("true": open on load). No CDN, no key: the iframe shows HOST/?embed=1, and HOST decides
 * which sites may frame it (GPU_ADVISOR_EMBED_ORIGINS -> CSP frame-ancestors).
 * The page can also call window.gpuAdvisor.open() / .close() / .toggle(). Escape closes the panel,
 * also while focus is inside the chat: the chat page posts {type: "gpu-advisor:close"} to this window.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || window.gpuAdvisor) {
    return; // loaded twice, or not as a classic script
  }
  var base = (script.getAttribute("data-gpu-advisor-url") || new URL(script.src, location.href).origin)
    .replace(/\/+$/, "");
  var title = script.getAttribute("data-title") || "Ask gpu-advisor";
  var side = script.getAttribute("data-position") === "left" ? "left" : "right";

  var host = document.createElement("div");
  host.id = "gpu-advisor-widget";
  host.style.display = "none"; // shown once the stylesheet is in, so the button never flashes unstyled
  var root = host.attachShadow({ mode: "open" });

  var css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = base + "/widget.css";
  css.onload = css.onerror = function () {
    host.style.display = "";
  };
  root.appendChild(css);

  var button = document.createElement("button");
  button.type = "button";
  button.className = "gpa-launcher gpa-" + side;
  button.setAttribute("aria-label", title);
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", "gpa-panel");
  button.innerHTML =
    '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path fill="currentColor" ' +
    'd="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2zm3 6a1.5 1.5 0 1 0 ' +
    '0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3z"/>' +
    "</svg>";
  var label = document.createElement("span");
  label.textContent = title;
  button.appendChild(label);

  var panel = document.createElement("div");
  panel.id = "gpa-panel";
  panel.className = "gpa-panel gpa-" + side;
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-label", title);
  panel.hidden = true;

  var bar = document.createElement("div");
  bar.className = "gpa-bar";
  var heading = document.createElement("span");
  heading.className = "gpa-title";
  heading.textContent = title;
  var full = document.createElement("a");
  full.className = "gpa-full";
  full.href = base + "/";
  full.target = "_blank";
  full.rel = "noopener";
  full.textContent = "Full page ↗";
  var close = document.createElement("button");
  close.type = "button";
  close.className = "gpa-close";
  close.setAttribute("aria-label", "Close");
  close.textContent = "×";
  bar.appendChild(heading);
  bar.appendChild(full);
  bar.appendChild(close);

  var body = document.createElement("div");
  body.className = "gpa-body";
  var loading = document.createElement("p");
  loading.className = "gpa-loading";
  loading.textContent = "Loading…";
  body.appendChild(loading);
  panel.appendChild(bar);
  panel.appendChild(body);

  var frame = null;

  function open() {
    if (!frame) {
      // Created on first open: pages that never open the chat never load it.
      frame = document.createElement("iframe");
      frame.className = "gpa-frame";
      frame.title = title;
      frame.src = base + "/?embed=1";
      frame.setAttribute("allow", "clipboard-write");
      frame.onload = function () {
        loading.hidden = true;
      };
      body.appendChild(frame);
    }
    panel.hidden = false;
    button.setAttribute("aria-expanded", "true");
    button.classList.add("gpa-open"); // on a phone the panel is full-screen and the launcher steps aside
    close.focus();
  }

  function hide() {
    if (panel.hidden) {
      return;
    }
    panel.hidden = true;
    button.setAttribute("aria-expanded", "false");
    button.classList.remove("gpa-open");
    button.focus();
  }

  function toggle() {
    if (panel.hidden) {
      open();
    } else {
      hide();
    }
  }

  button.addEventListener("click", toggle);
  close.addEventListener("click", hide);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      hide();
    }
  });
  window.addEventListener("message", function (event) {
    // Only the chat this widget framed may close it.
    if (frame && event.source === frame.contentWindow && event.data && event.data.type === "gpu-advisor:close") {
      hide();
    }
  });

  root.appendChild(panel);
  root.appendChild(button);
  window.gpuAdvisor = { open: open, close: hide, toggle: toggle };

  function attach() {
    document.body.appendChild(host);
    if (script.getAttribute("data-open") === "true") {
      open();
    }
  }
  if (document.body) {
    attach();
  } else {
    document.addEventListener("DOMContentLoaded", attach);
  }
})();
