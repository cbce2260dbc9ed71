"""The slot's math: board, symbols, model data, random stream, kernel, engine."""
