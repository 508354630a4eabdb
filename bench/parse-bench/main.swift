print("parse-bench: not yet")
