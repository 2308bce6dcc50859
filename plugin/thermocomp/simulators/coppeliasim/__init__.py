"""CoppeliaSim through its ZMQ remote API, and the authors' scene convention."""
