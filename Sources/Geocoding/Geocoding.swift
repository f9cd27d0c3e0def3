// Offline geocoding (issue 7): filled in by its implementation.
import LocationCore
