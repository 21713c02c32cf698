package com.acme.util;

public final class Strings {
    private Strings() {
    }

    public static String shout(String s) {
        return trim(s).toUpperCase();
    }

    public static String trim(String s) {
        return s.strip();
    }
}
