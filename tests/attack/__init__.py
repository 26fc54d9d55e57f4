"""The attack suite (issue 19, docs/security.md): the real daemon, console, broker, collector
and pit processes attacked over HTTP, MQTT and the shoe's line, as an attacker or a careless
operator would; each test ends with the attack refused or repaired, nothing lost and nothing
recorded twice."""
