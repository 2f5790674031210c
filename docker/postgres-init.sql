-- One database per service on the shared server.
CREATE DATABASE paste;
CREATE DATABASE license;
