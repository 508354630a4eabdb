print("rhythm-bench: to be written")
