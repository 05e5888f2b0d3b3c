"""Spins forever while being imported. Expected: TLE after the problem's time limit (the runner
imported torch before the file was loaded), not after the 20 s kept for Triton's import."""

while True:
    pass
