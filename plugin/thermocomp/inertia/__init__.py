"""Link inertias from CAD meshes (seed 000, Step 1)."""
