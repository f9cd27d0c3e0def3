extension MapRenderer {
    /// A self-contained HTML page: the SVG inline, pan (drag) and zoom (wheel, +/− keys, double-click) by an inline
    /// script that transforms the map layers and keeps the scale bar true. No external scripts, styles or tiles.
    public func html() -> String {
        var s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        s += "<title>\(xml(titleText)) — Lodestar map</title>\n<style>\n"
        s += "html,body{margin:0;padding:0;background:#e8eaed;font-family:'DejaVu Sans',Arial,sans-serif}"
        s += "#map{width:\(fmt(style.width, 0))px;height:\(fmt(style.height, 0))px;overflow:hidden;cursor:grab;touch-action:none}"
        s += "#map.dragging{cursor:grabbing}#map svg{display:block}\n</style></head><body>\n<div id=\"map\">\n"
        s += svg(standalone: false)
        s += "</div>\n<script>\n" + Self.panZoomScript + "</script>\n</body></html>\n"
        return s
    }

    static let panZoomScript = """
    (function () {
      'use strict';
      var svg = document.getElementById('lodestar-map');
      var vp = document.getElementById('viewport');
      var mpp = parseFloat(svg.getAttribute('data-meters-per-pixel'));
      var W = svg.viewBox.baseVal.width, H = svg.viewBox.baseVal.height;
      var k = 1, tx = 0, ty = 0;
      function scaleBar() {
        var target = mpp / k * W / 6, base = Math.pow(10, Math.floor(Math.log10(target)));
        var m = [5, 2, 1].map(function (f) { return f * base; }).find(function (v) { return v <= target; }) || base;
        var px = m / (mpp / k);
        var g = document.getElementById('scale-bar');
        g.setAttribute('transform', 'translate(' + (W - px - 24).toFixed(1) + ' ' + (H - 24) + ')');
        g.setAttribute('data-meters', m);
        g.querySelector('rect').setAttribute('width', (px + 12).toFixed(1));
        document.getElementById('scale-bar-line').setAttribute('d', 'M0 -4V4H' + px.toFixed(1) + 'V-4');
        var label = document.getElementById('scale-bar-label');
        label.setAttribute('x', (px / 2).toFixed(1));
        label.textContent = m >= 1000 ? (m / 1000) + ' km' : m + ' m';
      }
      function apply() {
        vp.setAttribute('transform', 'translate(' + tx.toFixed(2) + ' ' + ty.toFixed(2) + ') scale(' + k.toFixed(5) + ')');
        scaleBar();
      }
      function toSvg(ev) {
        var r = svg.getBoundingClientRect();
        return [(ev.clientX - r.left) * W / r.width, (ev.clientY - r.top) * H / r.height];
      }
      function zoomAt(p, f) {
        var nk = Math.min(Math.max(k * f, 0.25), 4096);
        f = nk / k; tx = p[0] - (p[0] - tx) * f; ty = p[1] - (p[1] - ty) * f; k = nk; apply();
      }
      svg.addEventListener('wheel', function (ev) { ev.preventDefault(); zoomAt(toSvg(ev), Math.exp(-ev.deltaY * 0.0015)); }, { passive: false });
      svg.addEventListener('dblclick', function (ev) { zoomAt(toSvg(ev), ev.shiftKey ? 0.5 : 2); });
      var drag = null;
      svg.addEventListener('pointerdown', function (ev) { drag = [toSvg(ev), tx, ty]; svg.parentNode.classList.add('dragging'); svg.setPointerCapture(ev.pointerId); });
      svg.addEventListener('pointermove', function (ev) {
        if (!drag) return;
        var p = toSvg(ev); tx = drag[1] + p[0] - drag[0][0]; ty = drag[2] + p[1] - drag[0][1]; apply();
      });
      svg.addEventListener('pointerup', function () { drag = null; svg.parentNode.classList.remove('dragging'); });
      document.addEventListener('keydown', function (ev) {
        if (ev.key === '+' || ev.key === '=') zoomAt([W / 2, H / 2], 1.5);
        else if (ev.key === '-') zoomAt([W / 2, H / 2], 1 / 1.5);
        else if (ev.key === '0') { k = 1; tx = 0; ty = 0; apply(); }
      });
      window.lodestarMap = { zoomAt: zoomAt, state: function () { return { k: k, tx: tx, ty: ty }; } };
      // '#zoom=F' opens the page zoomed by F about the centre (links, tests).
      var m = /zoom=([0-9.]+)/.exec(location.hash);
      if (m) zoomAt([W / 2, H / 2], parseFloat(m[1]));
      svg.setAttribute('data-ready', 'true');
    })();

    """
}
