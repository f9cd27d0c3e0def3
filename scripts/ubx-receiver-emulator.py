#!/usr/bin/env python3
"""A u-blox receiver emulated on a pseudo-terminal, for Tests/CLITests/ReceiverCLITests (test-only; run with the
test venv: `make ubx-test-venv`, then `.build/venv/bin/python3 scripts/ubx-receiver-emulator.py …`).

An independent UBX implementation: pyubx2 parses every configuration message lodestar sends (CFG-VALSET on
generation 9; CFG-RATE, CFG-NAV5, CFG-GNSS, CFG-MSG, CFG-PRT, CFG-CFG on generation 8) and builds the answers.

  --link PATH        symlink to the pty slave (the "device"); SIGUSR1 = replug: the master is closed (the reader
                     sees a hangup), a new pty is opened behind the same symlink, and the settings reset (RAM lost)
  --generation 9|8   answers MON-VER as a ZED-F9P (PROTVER 27.31) or a NEO-M8N (PROTVER 18.00)
  --nak NAME         NAK any message that sets NAME (a VALSET key such as CFG_NAVSPG_DYNMODEL, or a message name
                     such as CFG-NAV5)
  --ignore NAME      never answer (neither ACK nor NAK) a message that sets NAME
  --nmea-only        never answers UBX (an NMEA-only receiver)
  --log PATH         one JSON object per line: what was received, the layers written, and every replug
Output: NAV-PVT + NAV-EOE (generation 9) or NMEA RMC + GGA (generation 8 and --nmea-only) at the configured rate.
"""
import argparse, json, os, select, signal, sys, time, tty
from datetime import datetime, timezone
from pyubx2 import UBXMessage, UBXReader, SET, GET
from nmea_out import sentence

ap = argparse.ArgumentParser()
ap.add_argument("--link", required=True)
ap.add_argument("--generation", type=int, default=9)
ap.add_argument("--nak", default=None)
ap.add_argument("--ignore", default=None)
ap.add_argument("--nmea-only", action="store_true")
ap.add_argument("--log", required=True)
args = ap.parse_args()

log_file = open(args.log, "a", buffering=1)
def log(**kw):
    log_file.write(json.dumps(kw, default=str) + "\n")

def frame(cls, mid, payload):
    body = bytes([cls, mid, len(payload) & 0xFF, len(payload) >> 8]) + payload
    a = b = 0
    for x in body:
        a = (a + x) & 0xFF; b = (b + a) & 0xFF
    return b"\xb5\x62" + body + bytes([a, b])

def mon_ver():
    if args.generation >= 9:
        sw, hw, ext = "EXT CORE 1.00 (61ce84)", "00190000", ["ROM BASE 0x118B2060", "FWVER=HPG 1.32", "PROTVER=27.31",
                                                           "MOD=ZED-F9P", "GPS;GLO;GAL;BDS", "SBAS;QZSS"]
    else:
        sw, hw, ext = "ROM CORE 3.01 (107888)", "00080000", ["FWVER=SPG 3.01", "PROTVER=18.00", "MOD=NEO-M8N-0",
                                                           "GPS;GLO;GAL;BDS", "SBAS;IMES;QZSS"]
    p = sw.encode().ljust(30, b"\0") + hw.encode().ljust(10, b"\0") + b"".join(e.encode().ljust(30, b"\0") for e in ext)
    raw = frame(0x0A, 0x04, p)
    UBXReader.parse(raw)  # checked by the independent implementation
    return raw

DEFAULTS = {"rate_ms": 1000, "dyn_model": 0, "constellations": None}
state = dict(DEFAULTS)

def open_pty():
    master, slave = os.openpty()
    tty.setraw(slave)
    tmp = args.link + ".new"
    try: os.unlink(tmp)
    except FileNotFoundError: pass
    os.symlink(os.ttyname(slave), tmp)
    os.replace(tmp, args.link)
    return master, slave

master, slave = open_pty()
replug_requested = False
running = True
def on_usr1(*_):
    global replug_requested; replug_requested = True
def on_term(*_):
    global running; running = False
signal.signal(signal.SIGUSR1, on_usr1)
signal.signal(signal.SIGTERM, on_term)
log(event="ready", generation=args.generation, slave=os.ttyname(slave))

def send(data):
    try:
        os.write(master, data)
    except OSError:
        pass

def ack(cls, mid, ok, sets=()):
    if args.ignore is not None and args.ignore in sets:
        log(event="ignored", sets=list(sets))
        return
    send(UBXMessage("ACK", "ACK-ACK" if ok else "ACK-NAK", GET, clsID=cls, msgID=mid).serialize())

GNSS_NAMES = {0: "gps", 1: "sbas", 2: "galileo", 3: "beidou", 5: "qzss", 6: "glonass"}
SIGNAL_KEYS = {"CFG_SIGNAL_GPS_ENA": "gps", "CFG_SIGNAL_SBAS_ENA": "sbas", "CFG_SIGNAL_GAL_ENA": "galileo",
               "CFG_SIGNAL_BDS_ENA": "beidou", "CFG_SIGNAL_QZSS_ENA": "qzss", "CFG_SIGNAL_GLO_ENA": "glonass",
               "CFG_SIGNAL_NAVIC_ENA": "navic"}

def handle(raw):
    cls, mid, length = raw[2], raw[3], raw[4] | raw[5] << 8
    if args.nmea_only:
        return
    if (cls, mid) == (0x0A, 0x04) and length == 0:
        log(event="poll", message="MON-VER")
        send(mon_ver())
        return
    if cls != 0x06:
        return
    try:
        msg = UBXReader.parse(raw, msgmode=SET)
    except Exception as e:  # not understood: refused
        log(event="unparsed", cls=cls, id=mid, error=str(e))
        ack(cls, mid, False)
        return
    name = msg.identity
    fields = {k: v for k, v in vars(msg).items() if not k.startswith("_")}
    if name == "CFG-VALSET":
        if args.generation < 9:
            log(event="refused", message=name, reason="unknown to generation 8")
            ack(cls, mid, False)
            return
        layers = [l for l in ("ram", "bbr", "flash") if fields.get(l)]
        keys = {k: v for k, v in fields.items() if k.startswith("CFG_")}
        ok = args.nak not in keys
        log(event="set", message=name, layers=layers, keys=keys, acked=ok)
        if ok and fields.get("ram"):
            if "CFG_RATE_MEAS" in keys: state["rate_ms"] = keys["CFG_RATE_MEAS"]
            if "CFG_NAVSPG_DYNMODEL" in keys: state["dyn_model"] = keys["CFG_NAVSPG_DYNMODEL"]
            if any(k in SIGNAL_KEYS for k in keys):
                state["constellations"] = sorted(SIGNAL_KEYS[k] for k, v in keys.items() if k in SIGNAL_KEYS and v)
        ack(cls, mid, ok, keys)
        return
    if args.generation >= 9 and name in ("CFG-RATE", "CFG-NAV5", "CFG-GNSS", "CFG-MSG", "CFG-PRT", "CFG-CFG"):
        pass  # F9 still takes the legacy messages; answered the same way
    ok = args.nak != name
    entry = dict(event="set", message=name, acked=ok)
    if name == "CFG-RATE":
        entry["measRate"] = fields["measRate"]
        if ok: state["rate_ms"] = fields["measRate"]
    elif name == "CFG-NAV5":
        entry["dyn"] = fields.get("dyn"); entry["dynModel"] = fields.get("dynModel")
        if ok and fields.get("dyn"): state["dyn_model"] = fields["dynModel"]
    elif name == "CFG-GNSS":
        enabled = []
        for i in range(1, fields.get("numConfigBlocks", 0) + 1):
            gid = fields.get("gnssId_%02d" % i)
            if fields.get("enable_%02d" % i):
                enabled.append(GNSS_NAMES.get(gid, str(gid)))
        entry["enabled"] = sorted(enabled)
        if ok: state["constellations"] = sorted(enabled)
    elif name == "CFG-MSG":
        entry.update({k: fields[k] for k in fields if k in ("msgClass", "msgID", "rate")})
    elif name == "CFG-PRT":
        entry["baudRate"] = fields.get("baudRate"); entry["portID"] = fields.get("portID")
    elif name == "CFG-CFG":
        devices = [d for d in ("devBBR", "devFlash", "devEEPROM", "devSpiFlash") if fields.get(d)]
        entry["layers"] = devices
        entry["saveMask"] = fields.get("saveMask").hex() if isinstance(fields.get("saveMask"), bytes) else fields.get("saveMask")
    else:
        entry["fields"] = fields
    log(**entry)
    ack(cls, mid, ok, [name])

def nmea(body):
    return sentence(body).encode()

def epoch_output(t):
    dt = datetime.fromtimestamp(t, tz=timezone.utc)
    lat, lon = 48.1173, 11.5166667
    if args.generation >= 9 and not args.nmea_only:
        itow = int(round((t - 315964800 + 18) * 1000)) % (7 * 86400 * 1000)
        pvt = UBXMessage("NAV", "NAV-PVT", GET, iTOW=itow, year=dt.year, month=dt.month, day=dt.day, hour=dt.hour,
                         min=dt.minute, second=dt.second, validDate=1, validTime=1, fullyResolved=1, tAcc=20,
                         nano=dt.microsecond * 1000, fixType=3, gnssFixOk=1, numSV=12, lon=lon, lat=lat,
                         height=592300, hMSL=545400, hAcc=800, vAcc=1200, gSpeed=0, headMot=0, sAcc=100,
                         headAcc=20, pDOP=1.3)
        eoe = UBXMessage("NAV", "NAV-EOE", GET, iTOW=itow)
        return pvt.serialize() + eoe.serialize()
    hms = dt.strftime("%H%M%S") + ".%02d" % (dt.microsecond // 10000)
    date = dt.strftime("%d%m%y")
    return (nmea("GNRMC,%s,A,4807.038,N,01131.000,E,0.0,0.0,%s,,,A" % (hms, date))
            + nmea("GNGGA,%s,4807.038,N,01131.000,E,1,12,0.9,545.4,M,46.9,M,," % hms))

buffer = b""
next_epoch = None
while running:
    if replug_requested:
        replug_requested = False
        os.close(master); os.close(slave)
        state = dict(DEFAULTS)
        buffer = b""
        master, slave = open_pty()
        log(event="replug", slave=os.ttyname(slave))
    period = state["rate_ms"] / 1000.0
    now = time.time()
    if next_epoch is None or next_epoch - now > period:
        next_epoch = (int(now / period) + 1) * period
    timeout = max(0.0, next_epoch - now)
    try:
        ready, _, _ = select.select([master], [], [], timeout)
    except InterruptedError:
        continue
    if ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b""
        buffer += data
        while True:
            start = buffer.find(b"\xb5\x62")
            if start < 0:
                buffer = buffer[-1:] if buffer.endswith(b"\xb5") else b""
                break
            buffer = buffer[start:]
            if len(buffer) < 6:
                break
            total = (buffer[4] | buffer[5] << 8) + 8
            if len(buffer) < total:
                break
            raw, buffer = buffer[:total], buffer[total:]
            handle(raw)
    if time.time() >= next_epoch:
        send(epoch_output(next_epoch))
        next_epoch += period
log(event="stopped")
try: os.unlink(args.link)
except FileNotFoundError: pass
