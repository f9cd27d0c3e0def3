print("lodestar")
