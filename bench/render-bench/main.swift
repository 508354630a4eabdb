print("render-bench: not yet")
