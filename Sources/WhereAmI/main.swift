import LodestarKit
print("WhereAmI: not written yet")
