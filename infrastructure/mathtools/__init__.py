"""Math tooling: calculator figures, simulator, PAR, tuning, charts."""
