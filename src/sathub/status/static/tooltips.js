// Tooltips of the status grid. The page fills docTips.tips.a<id> with upstream's array shape
// (x, y, width, html); the cell links call docTips.show/hide on mouse-over as upstream's did,
// and keyboard focus shows the same tooltip. Without JavaScript each link leads to its block's
// reports in the "Reports in each block" section.
var docTips = (function () {
  var tips = {};
  var box = null;
  var mouse = null;

  function element() {
    if (!box) {
      box = document.createElement("div");
      box.className = "tip";
      box.id = "grid-tip";
      box.setAttribute("role", "tooltip");
      box.hidden = true;
      document.body.appendChild(box);
    }
    return box;
  }

  function place(tip, anchor) {
    var x, y;
    if (mouse) {
      x = mouse.x + 12;
      y = mouse.y + 12;
    } else {
      var rect = anchor.getBoundingClientRect();
      x = rect.right + window.scrollX + 6;
      y = rect.bottom + window.scrollY + 6;
    }
    var maxX = window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 6;
    tip.style.left = Math.max(window.scrollX + 4, Math.min(x, maxX)) + "px";
    tip.style.top = y + "px";
  }

  function show(key, anchor) {
    var entry = tips[key];
    if (!entry) return;
    var tip = element();
    tip.innerHTML = entry[3]; // server-escaped report values joined by <br>
    tip.hidden = false;
    place(tip, anchor || document.activeElement);
    if (anchor) anchor.setAttribute("aria-describedby", tip.id);
  }

  function hide() {
    if (box) box.hidden = true;
  }

  document.addEventListener("mousemove", function (event) {
    mouse = { x: event.pageX, y: event.pageY };
  });
  document.addEventListener("focusin", function (event) {
    var link = event.target.closest && event.target.closest(".status-grid td a[href^='#a']");
    if (link) {
      mouse = null;
      show(link.getAttribute("href").slice(1), link);
    }
  });
  document.addEventListener("focusout", hide);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") hide();
  });

  return { tips: tips, show: show, hide: hide };
})();
