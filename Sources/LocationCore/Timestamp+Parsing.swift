/// `Timestamp.parseISO8601` (the one ISO 8601 parser, `YYYY-MM-DDTHH:MM:SS[.fffffffff]Z`) under the name captures,
/// the JSON decoder and the fleet's messages have used.
public func parseISOTimestamp(_ text: String) -> Timestamp? { Timestamp.parseISO8601(text) }
