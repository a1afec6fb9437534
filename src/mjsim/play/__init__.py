"""Playing hands: the Python face of the hand loop (game), hand evaluation (engine) and the text of a replayed hand (replay)."""
