"""The game: pure math, values and the Player aggregate. Imports no infrastructure."""
