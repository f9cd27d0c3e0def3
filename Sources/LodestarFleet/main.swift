print("lodestar-fleet: not yet")
