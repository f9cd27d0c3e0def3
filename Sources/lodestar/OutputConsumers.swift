import Events

/// Output consumers beside the encoder's sinks (network servers, MQTT, the live page): each gets every
/// `OutputEvent` of the session in order (see `OutputEventConsumer` and docs/architecture.md). Add a consumer here,
/// built from its own options, so `replay` and `run` both feed it.
func makeConsumers(_ options: OutputOptions) throws -> [any OutputEventConsumer] {
    var consumers: [any OutputEventConsumer] = []
    if let hub = try LiveHTTP.start(options.http) { consumers.append(hub) }   // the live page (docs/maps.md)
    return consumers
}
