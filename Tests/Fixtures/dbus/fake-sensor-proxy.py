#!/usr/bin/python3
"""A stand-in for iio-sensor-proxy's compass, for the tests: owns net.hadess.SensorProxy on the bus given as the
first argument and offers /net/hadess/SensorProxy/Compass with the interface net.hadess.SensorProxy.Compass
(ClaimCompass, ReleaseCompass; properties HasCompass and CompassHeading, with PropertiesChanged signals).
Like the real service, the heading reads -1 until a client has claimed the compass.

Usage: fake-sensor-proxy.py BUS_ADDRESS HEADING
Prints "ready" once it owns the name, "claimed" when a client claims. Reads commands from standard input:
"heading DEG" changes the heading (and signals it), "has true|false" adds or removes the compass, "quit" ends.
"""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "net.hadess.SensorProxy"
PATH = "/net/hadess/SensorProxy/Compass"
IFACE = "net.hadess.SensorProxy.Compass"


class Compass(dbus.service.Object):
    def __init__(self, bus, heading):
        super().__init__(bus, PATH)
        self.heading = heading
        self.has = True
        self.claims = set()

    def values(self):
        heading = self.heading if (self.claims and self.has) else -1.0
        return {"HasCompass": dbus.Boolean(self.has), "CompassHeading": dbus.Double(heading)}

    @dbus.service.method(IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def ClaimCompass(self, sender=None):
        self.claims.add(sender)
        print("claimed", flush=True)

    @dbus.service.method(IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def ReleaseCompass(self, sender=None):
        self.claims.discard(sender)

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        if interface != IFACE or prop not in self.values():
            raise dbus.exceptions.DBusException("no property " + prop, name="org.freedesktop.DBus.Error.UnknownProperty")
        return self.values()[prop]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.values() if interface == IFACE else {}

    @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


def main():
    address, heading = sys.argv[1], float(sys.argv[2])
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    compass = Compass(bus, heading)
    owned = dbus.service.BusName(NAME, bus)  # noqa: F841 (holds the name)
    loop = GLib.MainLoop()

    def command(source, condition):
        line = sys.stdin.readline()
        if not line or line.strip() == "quit":
            loop.quit()
            return False
        words = line.split()
        if words[:1] == ["heading"]:
            compass.heading = float(words[1])
        elif words[:1] == ["has"]:
            compass.has = words[1] == "true"
        compass.PropertiesChanged(IFACE, compass.values(), [])
        print("ok", flush=True)
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
    print("ready", flush=True)
    loop.run()


if __name__ == "__main__":
    main()
