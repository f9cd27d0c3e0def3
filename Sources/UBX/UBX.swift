/// u-blox UBX binary protocol: framing (mixed with NMEA and RTCM3 on one port), typed messages, an epoch
/// assembler by iTOW, and message builders for configuration. Pure: no clock, no I/O.
public enum UBX {}
