/** The YARP release version; the Pi extension must report the same one. */
export const YARP_VERSION = "0.1.0";
