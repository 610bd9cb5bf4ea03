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
