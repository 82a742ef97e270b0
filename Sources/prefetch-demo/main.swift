print("prefetch-demo: coming soon")
