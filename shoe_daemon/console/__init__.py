"""The croupier's console (issue #12): the people of the table and their sign-in, the
actions they take and the architecture that carries them into the table's loop, the
latched holds' resolution, the recall, and the touch-screen page with its HTTP JSON API.

It imports the game, the audit and the display's public view; the service wires it in
beside the display (docs/console.md, docs/architecture.md).
"""
