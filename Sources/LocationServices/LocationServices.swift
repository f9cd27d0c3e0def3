// Location services (issue 6): filled in by its implementation.
import LocationCore
