// Placeholder until this engine lands.
print("not yet")
