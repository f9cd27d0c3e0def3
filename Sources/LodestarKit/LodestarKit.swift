@_exported import LocationCore
