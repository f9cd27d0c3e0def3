/// The live page: one self-contained HTML document (inline style and script, no external assets). It connects to
/// `/ws`, reconnects with backoff when the connection drops, and draws the position, the accuracy circle, the heading
/// cone (width = headingAccuracy), the track, the satellites and the availability from the Lodestar JSON lines it
/// receives (docs/output.md), in Web Mercator like `lodestar map`.
enum LivePageHTML {
    static let page = #"""
    <!DOCTYPE html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Lodestar live</title>
    <style>
    html,body{margin:0;font-family:'DejaVu Sans',Arial,sans-serif;background:#f1f3f4;color:#202124}
    #wrap{display:flex;flex-wrap:wrap;gap:10px;padding:10px}
    #map{background:#f4f1ea;border:1px solid #bbb}
    #side{min-width:300px;max-width:420px;font-size:13px}
    .box{background:#fff;border:1px solid #ccc;border-radius:6px;padding:8px 10px;margin-bottom:8px}
    .k{color:#5f6368}#conn.live{color:#188038}#conn.reconnecting,#conn.connecting{color:#d93025}
    h1{font-size:16px;margin:0 0 4px 0}
    </style></head>
    <body data-connection="connecting" data-messages="0" data-fixes="0">
    <div id="wrap">
    <svg id="map" width="760" height="560" viewBox="0 0 760 560" xmlns="http://www.w3.org/2000/svg">
      <polyline id="track" fill="none" stroke="#1a73e8" stroke-width="3" stroke-linejoin="round" points=""/>
      <circle id="accuracy" cx="-100" cy="-100" r="0" fill="#1a73e8" fill-opacity="0.15" stroke="#1a73e8" stroke-opacity="0.5"/>
      <path id="cone" d="" fill="#e8453c" fill-opacity="0.45"/>
      <circle id="dot" cx="-100" cy="-100" r="7" fill="#1a73e8" stroke="#fff" stroke-width="2.5"/>
      <g id="north" transform="translate(730 34)"><circle r="20" fill="#fff" fill-opacity="0.9" stroke="#999"/><path d="M0 -14L6 5L0 1L-6 5Z" fill="#202124"/><text y="16" text-anchor="middle" font-size="9" font-weight="bold">N</text></g>
      <g id="scale" transform="translate(20 540)"><path id="scale-line" d="M0 -4V4H100V-4" fill="none" stroke="#202124" stroke-width="2"/><text id="scale-label" x="50" y="-7" text-anchor="middle" font-size="11"></text></g>
      <text id="waiting" x="380" y="280" text-anchor="middle" font-size="16" fill="#5f6368">waiting for a position…</text>
    </svg>
    <div id="side">
      <div class="box"><h1>Lodestar live</h1><span class="k">connection</span> <b id="conn" class="connecting">connecting</b>
        · <span class="k">location services</span> <b id="loc">–</b> · <span class="k">heading</span> <b id="hdg-avail">–</b></div>
      <div class="box" id="numbers"><div><span class="k">position</span> <b id="position">–</b></div>
        <div><span class="k">accuracy</span> <b id="acc">–</b> · <span class="k">speed</span> <b id="speed">–</b> · <span class="k">course</span> <b id="course">–</b></div>
        <div><span class="k">heading</span> <b id="heading">–</b> · <span class="k">time</span> <b id="time">–</b></div></div>
      <div class="box"><span class="k">satellites</span> <b id="satcount">–</b>
        <svg id="sats" width="400" height="120" viewBox="0 0 400 120" xmlns="http://www.w3.org/2000/svg"></svg></div>
      <div class="box"><span class="k">sources</span><div id="statuses">–</div></div>
    </div></div>
    <script>
    (function () {
      'use strict';
      var W = 760, H = 560, R = 6378137;
      var track = [], fix = null, heading = null, statuses = {}, messages = 0, fixes = 0, retry = 500, ws = null;
      function $(id) { return document.getElementById(id); }
      function unit(lat, lon) {
        var s = Math.sin(Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI / 180);
        return [(lon + 180) / 360, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)];
      }
      function f(v, d) { return (v === undefined || v === null) ? '–' : Number(v).toFixed(d); }
      function conePath(x, y, h, a, L) {
        if (a >= 180) return 'M' + (x - L) + ' ' + y + 'A' + L + ' ' + L + ' 0 1 0 ' + (x + L) + ' ' + y + 'A' + L + ' ' + L + ' 0 1 0 ' + (x - L) + ' ' + y + 'Z';
        function at(d) { var r = d * Math.PI / 180; return [x + L * Math.sin(r), y - L * Math.cos(r)]; }
        var p = at(h - a), q = at(h + a);
        return 'M' + x.toFixed(2) + ' ' + y.toFixed(2) + 'L' + p[0].toFixed(2) + ' ' + p[1].toFixed(2) + 'A' + L + ' ' + L + ' 0 ' + (2 * a > 180 ? 1 : 0) + ' 1 ' + q[0].toFixed(2) + ' ' + q[1].toFixed(2) + 'Z';
      }
      function draw() {
        if (!fix || fix.latitudeDegrees === undefined) return;
        $('waiting').style.display = 'none';
        var lat = fix.latitudeDegrees, lon = fix.longitudeDegrees, c = unit(lat, lon);
        var acc = fix.horizontalAccuracyMeters || 0;
        var mPerUnit = 2 * Math.PI * R * Math.cos(lat * Math.PI / 180);
        // Fit the last 300 track points and three times the accuracy around the position (at most zoom 19).
        var span = Math.max(3 * acc, 60) / mPerUnit, du = span, dv = span;
        var recent = track.slice(-300);
        for (var i = 0; i < recent.length; i++) {
          var u = unit(recent[i][0], recent[i][1]);
          du = Math.max(du, Math.abs(u[0] - c[0])); dv = Math.max(dv, Math.abs(u[1] - c[1]));
        }
        var scale = Math.min((W / 2 - 30) / du, (H / 2 - 30) / dv, 256 * Math.pow(2, 19));
        function px(p) { var u = unit(p[0], p[1]); return [W / 2 + (u[0] - c[0]) * scale, H / 2 + (u[1] - c[1]) * scale]; }
        $('track').setAttribute('points', track.map(function (p) { var q = px(p); return q[0].toFixed(1) + ',' + q[1].toFixed(1); }).join(' '));
        var r = acc / mPerUnit * scale;
        $('accuracy').setAttribute('cx', W / 2); $('accuracy').setAttribute('cy', H / 2); $('accuracy').setAttribute('r', r.toFixed(1));
        $('dot').setAttribute('cx', W / 2); $('dot').setAttribute('cy', H / 2);
        var cone = $('cone');
        if (heading && heading.headingAccuracyDegrees >= 0) {
          var hd = heading.trueHeadingDegrees >= 0 ? heading.trueHeadingDegrees : heading.magneticHeadingDegrees;
          cone.setAttribute('d', conePath(W / 2, H / 2, hd, heading.headingAccuracyDegrees, 60));
          cone.setAttribute('data-accuracy', heading.headingAccuracyDegrees);
        } else { cone.setAttribute('d', ''); }
        var mpp = mPerUnit / scale, target = mpp * 120, base = Math.pow(10, Math.floor(Math.log10(target)));
        var m = [5, 2, 1].map(function (k) { return k * base; }).find(function (v) { return v <= target; }) || base;
        var len = m / mpp;
        $('scale-line').setAttribute('d', 'M0 -4V4H' + len.toFixed(1) + 'V-4');
        $('scale-label').setAttribute('x', (len / 2).toFixed(1));
        $('scale-label').textContent = m >= 1000 ? (m / 1000) + ' km' : m + ' m';
      }
      function drawSky(sky) {
        var sats = (sky.satellites || []).slice(0, 32), svg = $('sats'), w = 400 / Math.max(sats.length, 1), out = '';
        for (var i = 0; i < sats.length; i++) {
          var s = sats[i], snr = s.snrDBHz || 0, h = Math.min(snr, 55) / 55 * 95;
          out += '<rect class="sat' + (s.used ? ' used' : '') + '" x="' + (i * w + 1).toFixed(1) + '" y="' + (100 - h).toFixed(1) + '" width="' + Math.max(w - 2, 1).toFixed(1) + '" height="' + h.toFixed(1) + '" fill="' + (s.used ? '#1a73e8' : '#9aa0a6') + '"><title>' + s.constellation + ' ' + s.svid + ': ' + snr + ' dB-Hz</title></rect>';
          out += '<text x="' + (i * w + w / 2).toFixed(1) + '" y="114" font-size="8" text-anchor="middle">' + s.svid + '</text>';
        }
        svg.innerHTML = out;
        $('satcount').textContent = (sky.satellitesUsed !== undefined ? sky.satellitesUsed : '–') + ' used of ' + (sky.satellitesVisible !== undefined ? sky.satellitesVisible : sats.length);
      }
      function handle(m) {
        messages++;
        document.body.setAttribute('data-messages', messages);
        switch (m['class']) {
          case 'track': track = m.points || []; break;
          case 'fix':
            fix = m; fixes++;
            document.body.setAttribute('data-fixes', fixes);
            if (m.latitudeDegrees !== undefined && m.mode !== 'none') {
              track.push([m.latitudeDegrees, m.longitudeDegrees]);
              if (track.length > 3600) track.shift();
              $('position').textContent = f(m.latitudeDegrees, 6) + ', ' + f(m.longitudeDegrees, 6);
            } else { $('position').textContent = 'unavailable'; }
            $('acc').textContent = f(m.horizontalAccuracyMeters, 1) + ' m';
            $('speed').textContent = f(m.speedMetersPerSecond, 1) + ' m/s';
            $('course').textContent = f(m.courseDegrees, 0) + '°';
            $('time').textContent = m.time || '–';
            draw(); break;
          case 'heading':
            heading = m;
            $('heading').textContent = m.headingAccuracyDegrees >= 0 ? f(m.trueHeadingDegrees >= 0 ? m.trueHeadingDegrees : m.magneticHeadingDegrees, 0) + '° ± ' + f(m.headingAccuracyDegrees, 0) + '°' : 'invalid';
            draw(); break;
          case 'sky': drawSky(m); break;
          case 'availability':
            $('loc').textContent = m.locationServicesEnabled ? 'enabled' : 'disabled';
            $('hdg-avail').textContent = m.headingAvailable ? 'available' : 'unavailable'; break;
          case 'status':
            statuses[m.source] = m;
            $('statuses').textContent = Object.keys(statuses).sort().map(function (k) { return k + ': ' + statuses[k].state + (statuses[k].message ? ' (' + statuses[k].message + ')' : ''); }).join('; ');
            break;
        }
      }
      function setConnection(s) { $('conn').textContent = s; $('conn').className = s; document.body.setAttribute('data-connection', s); }
      function connect() {
        setConnection('connecting');
        ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
        ws.onopen = function () { retry = 500; setConnection('live'); };
        ws.onmessage = function (e) { try { handle(JSON.parse(e.data)); } catch (err) { } };
        ws.onclose = function () { setConnection('reconnecting'); setTimeout(connect, retry); retry = Math.min(retry * 2, 10000); };
      }
      connect();
    })();
    </script>
    </body></html>
    """#
}
