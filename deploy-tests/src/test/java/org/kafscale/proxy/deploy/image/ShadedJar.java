package org.kafscale.proxy.deploy.image;

import java.io.IOException;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.kafscale.proxy.deploy.RepoPaths;
import org.w3c.dom.Document;
import org.xml.sax.SAXException;

/** What proxy-app's pom says its shaded jar is: the file name and the main class. */
record ShadedJar(String path, String mainClass) {

    static ShadedJar fromPom() throws IOException {
        try {
            Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(RepoPaths.root().resolve(Path.of("proxy-app", "pom.xml")).toFile());
            String finalName = only(pom, "finalName");
            String mainClass = only(pom, "mainClass");
            return new ShadedJar("proxy-app/target/" + finalName + ".jar", mainClass);
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException(e);
        }
    }

    private static String only(Document pom, String element) {
        var nodes = pom.getElementsByTagName(element);
        if (nodes.getLength() != 1) {
            throw new AssertionError("proxy-app/pom.xml has " + nodes.getLength() + " <" + element + ">");
        }
        return nodes.item(0).getTextContent().trim();
    }
}
