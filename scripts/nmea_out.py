"""NMEA sentence helpers for the scripts here (soak.py, ubx-receiver-emulator.py, rtklib-pos2nmea.py, gsdc-truth2nmea.py)."""


def sentence(body):
    """`$body*CS` with its checksum and CRLF."""
    c = 0
    for ch in body.encode():
        c ^= ch
    return "$%s*%02X\r\n" % (body, c)


def degrees_minutes(v, latitude, decimals=4):
    """NMEA ddmm.mmmm (dddmm.mmmm for a longitude) and the hemisphere letter."""
    a = abs(v)
    d = int(a)
    m = (a - d) * 60
    width = decimals + 3
    text = ("%02d%0*.*f" if latitude else "%03d%0*.*f") % (d, width, decimals, m)
    hemisphere = ("N" if v >= 0 else "S") if latitude else ("E" if v >= 0 else "W")
    return text, hemisphere
