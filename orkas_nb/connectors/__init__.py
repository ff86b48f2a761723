"""Connectors: the open host's doors (SPEC §12): external skill packages
(:mod:`.packages`, :mod:`.package_git`, :mod:`.relay`) and the reverse gateway
(:mod:`.gateway`, :mod:`.gateway_bridge`)."""
