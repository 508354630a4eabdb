print("latency-bench: to be written")
