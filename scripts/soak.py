#!/usr/bin/env python3
"""Soak test for `make bench` (not CI): `lodestar run` on a pseudo-terminal receiver at 10 Hz plus a simulated
100 Hz IMU (an IIO sysfs-shaped directory: no IIO device exists here), for SECONDS, with stdout and a --fifo each
read by a reader that stalls and resumes (in anti-phase). Reports RSS at start and end and every counter.
Usage: scripts/soak.py BINARY [SECONDS]"""
import os, pty, re, signal, subprocess, sys, tempfile, threading, time, tty

from nmea_out import sentence

binary = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 600
work = tempfile.mkdtemp(prefix="lodestar-soak.")

# 1. The receiver: a pty fed RMC, GGA, GSA, GSV every 100 ms (10 Hz), moving slowly north-east.
master, slave = pty.openpty()
tty.setraw(slave)
slave_path = os.ttyname(slave)
stop = threading.Event()
sent = {"cycles": 0}
def receiver():
    start = time.monotonic()
    k = 0
    while not stop.is_set():
        t = time.gmtime(1_700_000_000 + k // 10)
        hhmmss = time.strftime("%H%M%S", t) + ".%d0" % (k % 10)
        date = time.strftime("%d%m%y", t)
        lat = 4807.038 + k * 0.0001
        out = sentence("GPRMC,%s,A,%.4f,N,01131.000,E,5.0,45.0,%s,,,A" % (hhmmss, lat, date))
        out += sentence("GPGGA,%s,%.4f,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,," % (hhmmss, lat))
        out += sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,,,,,1.5,0.9,1.2")
        out += sentence("GPGSV,2,1,08,01,40,083,46,02,17,308,41,03,07,344,39,04,22,228,45")
        out += sentence("GPGSV,2,2,08,05,60,120,44,06,33,200,40,07,12,010,38,08,55,270,47")
        try:
            os.write(master, out.encode())
        except BlockingIOError:
            pass
        sent["cycles"] += 1
        k += 1
        time.sleep(max(0, start + k * 0.1 - time.monotonic()))
# Drain what the run writes back (nothing expected) so the pty never fills.
threading.Thread(target=receiver, daemon=True).start()

# 2. The IMU: magnetometer + accelerometer raw attributes at 100 Hz, values changing (a slow turn).
iio = os.path.join(work, "iio:device0")
os.makedirs(iio)
def put(name, value):
    tmp = os.path.join(iio, "." + name)
    with open(tmp, "w") as f:
        f.write("%s\n" % value)
    os.replace(tmp, os.path.join(iio, name))
put("name", "soak-imu")
put("sampling_frequency", "100")
put("in_magn_scale", "0.000146")   # gauss per count -> µT by the driver's unit factor
put("in_accel_scale", "0.000598")  # m/s² per count
for axis in "xyz":
    put("in_magn_%s_raw" % axis, 1000)
    put("in_accel_%s_raw" % axis, 0)
def imu():
    import math
    k = 0
    while not stop.is_set():
        a = k * 0.002
        put("in_magn_x_raw", int(2000 * math.cos(a)))
        put("in_magn_y_raw", int(2000 * math.sin(a)))
        put("in_magn_z_raw", -3000)
        put("in_accel_z_raw", 16400)
        k += 1
        time.sleep(0.01)
threading.Thread(target=imu, daemon=True).start()

# 3. Outputs: stdout and a FIFO, each read by a reader that reads 20 s, stalls 20 s, resumes (anti-phase).
out_fifo = os.path.join(work, "stdout.fifo")
side_fifo = os.path.join(work, "side.fifo")
os.mkfifo(out_fifo)
readers = {}
def reader(path, phase, key):
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(fd, True)
    stats = {"bytes": 0, "lines": 0, "torn": 0, "stalls": 0}
    readers[key] = stats
    pending = b""
    start = time.monotonic()
    while not stop.is_set():
        if int((time.monotonic() - start) / 20 + phase) % 2 == 1:
            stats["stalls"] += 1
            time.sleep(20)
            continue
        import select
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            continue
        data = os.read(fd, 65536)
        if not data:
            if path == side_fifo:  # writer reopens later
                time.sleep(0.1)
                continue
            break
        stats["bytes"] += len(data)
        pending += data
        *lines, pending = pending.split(b"\n")
        for line in lines:
            stats["lines"] += 1
            if not (line.startswith(b"{") and line.endswith(b"}")):
                stats["torn"] += 1
    os.close(fd)

out_holder = os.open(out_fifo, os.O_RDONLY | os.O_NONBLOCK)  # so the run's stdout open does not block
threading.Thread(target=reader, args=(out_fifo, 0, "stdout"), daemon=True).start()
err_path = os.path.join(work, "stderr")
stdout_fd = os.open(out_fifo, os.O_WRONLY)
proc = subprocess.Popen([binary, "run", "--gps", slave_path + "@115200", "--imu", "iio:" + iio,
                         "--fifo", side_fifo, "--passthrough"],
                        stdout=stdout_fd, stderr=open(err_path, "w"), stdin=subprocess.DEVNULL)
os.close(stdout_fd)
os.close(out_holder)
time.sleep(1)
threading.Thread(target=reader, args=(side_fifo, 1, "fifo"), daemon=True).start()

def rss(pid):
    with open("/proc/%d/status" % pid) as f:
        m = re.search(r"VmRSS:\s+(\d+) kB", f.read())
    return int(m.group(1)) if m else -1

time.sleep(min(10, seconds / 4))
rss_start = rss(proc.pid)
samples = [rss_start]
deadline = time.monotonic() + seconds - min(10, seconds / 4)
while time.monotonic() < deadline and proc.poll() is None:
    time.sleep(5)
    samples.append(rss(proc.pid))
rss_end = rss(proc.pid)
t0 = time.monotonic()
proc.send_signal(signal.SIGTERM)
code = proc.wait(timeout=10)
stop_s = time.monotonic() - t0
stop.set()
time.sleep(0.5)
err = open(err_path).read().strip().splitlines()
summary = [l for l in err if l.startswith("lodestar: run:")]
statuses = [l for l in err if not l.startswith("lodestar: run:")]
print("soak: %.0f s, receiver 10 Hz (%d cycles sent), IIO IMU polled at 100 Hz (simulated sysfs directory)" % (seconds, sent["cycles"]))
print("soak: RSS start %d kB, end %d kB, max %d kB (sampled every 5 s)" % (rss_start, rss_end, max(samples)))
print("soak: exit %d after SIGTERM in %.2f s" % (code, stop_s))
print("soak: " + (summary[0] if summary else "no summary line!"))
for k, s in readers.items():
    print("soak: reader %s: %d lines (%d torn), %d bytes, %d stalls of 20 s" % (k, s["lines"], s["torn"], s["bytes"], s["stalls"]))
print("soak: %d status lines on stderr: %s" % (len(statuses), "; ".join(statuses[:6])))
