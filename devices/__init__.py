"""Device adapters for the dealer station: transport → framing → protocol → adapter, plus simulators."""
