// htmx 2 does not swap 4xx/5xx responses: show a banner instead of failing silently.
document.addEventListener("htmx:responseError", function (event) {
  var banner = document.getElementById("banner");
  if (!banner) return;
  var status = event.detail.xhr.status;
  banner.textContent = status === 409
    ? "Someone saved a newer revision. Reload the page to see it."
    : "The server answered " + status + ". Reload the page and try again.";
  banner.hidden = false;
});
document.addEventListener("htmx:sendError", function () {
  var banner = document.getElementById("banner");
  if (banner) { banner.textContent = "The server cannot be reached."; banner.hidden = false; }
});

// editing, compare, sweep: "copy link" buttons copy data-copy (the link stays a plain link without JS).
document.addEventListener("click", function (event) {
  var button = event.target.closest ? event.target.closest(".copy-link") : null;
  if (!button) return;
  event.preventDefault();
  var text = button.getAttribute("data-copy") || button.href;
  function done(label) {
    var old = button.textContent;
    button.textContent = label;
    setTimeout(function () { button.textContent = old; }, 1500);
  }
  function fallback() {
    window.prompt("Copy this link:", text);
  }
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(function () { done("Copied"); }, fallback);
  } else {
    fallback();
  }
});

// security: forms with data-confirm ask first (an inline onsubmit would be blocked by the CSP).
document.addEventListener("submit", function (event) {
  var message = event.target.getAttribute && event.target.getAttribute("data-confirm");
  if (message && !window.confirm(message)) event.preventDefault();
});

// the draft editor: typed text is stored after a pause (htmx autosave); until it is, leaving the page warns.
var unsaved = new Set();
document.addEventListener("input", function (event) {
  if (event.target.hasAttribute && event.target.hasAttribute("data-autosave")) unsaved.add(event.target.id);
});
document.addEventListener("htmx:afterRequest", function (event) {
  var source = event.detail.elt;
  if (source && source.hasAttribute && source.hasAttribute("data-autosave") && event.detail.successful) {
    unsaved.delete(source.id);
  }
});
document.addEventListener("submit", function (event) {
  if (event.target.id === "editor-form") unsaved.clear();  // the text is sent with the form
});
window.addEventListener("beforeunload", function (event) {
  if (unsaved.size) { event.preventDefault(); event.returnValue = ""; }
});

// a change made through htmx (a quick edit, undo, redo): its message goes beside the control that made it
// (the form named by data-origin), is read out, and focus stays where the person was: htmx gives it back
// to the control with the same id; when that control is gone or disabled, the message takes it.
// A swap can move what is above the control; the control is put back where it was on the screen.
// A refused change keeps what was typed in its form.
var kept = null, typed = null;
document.addEventListener("htmx:beforeSwap", function (event) {
  var active = document.activeElement;
  kept = active && active.id ? { id: active.id, top: active.getBoundingClientRect().top } : null;
  var form = event.detail.requestConfig && event.detail.requestConfig.elt;
  typed = null;
  if (form && form.tagName === "FORM" && form.id) {
    typed = { form: form.id, values: {} };
    Array.prototype.forEach.call(form.elements, function (field) {
      if (field.id && field.type !== "hidden") typed.values[field.id] = field.value;
    });
  }
});
document.addEventListener("htmx:afterSettle", function () {
  var control = kept && document.getElementById(kept.id);
  if (control) window.scrollBy(0, control.getBoundingClientRect().top - kept.top);
  kept = null;
  var box = document.getElementById("edit-message");
  if (typed && box && box.getAttribute("data-origin") === typed.form && document.getElementById("edit-error")) {
    Object.keys(typed.values).forEach(function (id) {
      var field = document.getElementById(id);
      if (field) field.value = typed.values[id];
    });
  }
  typed = null;
  var message = box && box.firstElementChild;
  if (!message || message.hasAttribute("data-placed")) return;
  message.setAttribute("data-placed", "");
  var origin = box.getAttribute("data-origin");
  var form = origin ? document.getElementById(origin) : null;
  if (form) {
    message.classList.add("beside");
    var row = form.closest(".actions");  // (forms side by side: below their row)
    if (row) row.after(message); else form.appendChild(message);
  }
  if (message.getAttribute("role") !== "alert") {
    var announce = document.getElementById("announce");
    if (announce) announce.textContent = message.textContent.replace(/\s+/g, " ").trim();
  }
  var active = document.activeElement;
  if (!active || active === document.body || active.disabled) {
    message.tabIndex = -1;
    message.focus();
  }
  var box2 = message.getBoundingClientRect();
  if (box2.bottom > window.innerHeight || box2.top < 0) message.scrollIntoView({ block: "nearest" });
});

// uploads: a form with data-upload-progress shows how much of its body has been sent, then that the server
// is reading it (a cluster dump of a few hundred MB takes a while on either side).
function uploadProgress(form) {
  return form && form.hasAttribute && form.hasAttribute("data-upload-progress")
    ? form.querySelector(".upload-progress") : null;
}
function megabytes(n) { return (n / 1048576).toFixed(n < 10485760 ? 1 : 0) + " MB"; }
document.addEventListener("htmx:xhr:progress", function (event) {
  var box = uploadProgress(event.detail.elt);
  if (!box || !event.detail.lengthComputable || !event.detail.total) return;
  var bar = box.querySelector("progress"), text = box.querySelector(".upload-progress-text");
  var done = event.detail.loaded >= event.detail.total;
  box.hidden = false;
  bar.value = Math.round(100 * event.detail.loaded / event.detail.total);
  text.textContent = done
    ? "Sent " + megabytes(event.detail.total) + "; the server is reading the manifests…"
    : "Sending " + megabytes(event.detail.loaded) + " of " + megabytes(event.detail.total) + "…";
});
document.addEventListener("htmx:beforeRequest", function (event) {
  var box = uploadProgress(event.detail.elt);
  if (!box) return;
  box.hidden = false;
  box.querySelector("progress").removeAttribute("value");  // indeterminate until the first figure
  box.querySelector(".upload-progress-text").textContent = "Sending…";
});
