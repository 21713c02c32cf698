package com.acme.model;

import com.acme.util.Strings;

public class User {
    private final String name;

    public User(String name) {
        this.name = Strings.trim(name);
    }

    public String getName() {
        return name;
    }
}
