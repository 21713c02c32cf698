print("never run")
