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
